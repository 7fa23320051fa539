import Foundation

/// A download link of an order as the operator's console shows it: the link and what became of it.
public struct OrderLinkState: Sendable, Equatable, Codable {
    public let id: String
    public let reusable: Bool
    public let createdAt: Date
    public let expiresAt: Date
    public let firstUsedAt: Date?
    public let downloads: Int
    public let revokedAt: Date?
    /// The merchant whose link it is (the order's).
    public let merchantID: Int64

    public init(
        id: String,
        reusable: Bool,
        createdAt: Date,
        expiresAt: Date,
        firstUsedAt: Date?,
        downloads: Int,
        revokedAt: Date?,
        merchantID: Int64
    ) {
        self.id = id
        self.reusable = reusable
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.firstUsedAt = firstUsedAt
        self.downloads = downloads
        self.revokedAt = revokedAt
        self.merchantID = merchantID
    }
}

/// What happened day by day (UTC days, numbered from 1970-01-01 as 0) since a time, for the console's charts: of all
/// orders, or of one merchant's.
public struct StoreActivity: Sendable, Equatable {
    /// Orders created, by day.
    public var ordersCreated: [Int64: Int] = [:]
    /// Versions written after the first (updates), by day.
    public var ordersUpdated: [Int64: Int] = [:]
    /// Orders a device registered for the first time (added to Wallet), by day.
    public var ordersAdded: [Int64: Int] = [:]
    /// Of the orders created since the start, how many were added to Wallet.
    public var addedOfCreated = 0
    /// Devices registered for at least one order now.
    public var registeredDevices = 0
    /// Pushes queued, by day (of those the outbox still keeps).
    public var pushesQueued: [Int64: Int] = [:]
    /// Pushes that ended (delivered or failed), by the day they ended and how.
    public var pushesFinished: [Int64: [PushStatus: Int]] = [:]
    /// Delivered pushes by day: whole seconds from queued to delivered, and how many took that long.
    public var deliverySeconds: [Int64: [Int: Int]] = [:]
    /// Pushes pending or being sent now.
    public var outboxDepth = 0

    public init() {}

    /// The day `date` falls on.
    public static func day(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 86_400).rounded(.down)) }
}
