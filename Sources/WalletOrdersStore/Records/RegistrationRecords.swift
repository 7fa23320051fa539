import Foundation

/// A device registered for an order's updates.
public struct Registration: Sendable, Codable, Equatable {
    public let deviceIdentifier: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let pushToken: String
    public let createdAt: Date
    public let updatedAt: Date

    public init(
        deviceIdentifier: String,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        pushToken: String,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.deviceIdentifier = deviceIdentifier
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.pushToken = pushToken
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Which registrations a listing shows.
public struct RegistrationFilter: Sendable {
    public var device: String?
    public var type: String?
    public var id: String?

    public init(device: String? = nil, type: String? = nil, id: String? = nil) {
        self.device = device
        self.type = type
        self.id = id
    }
}

/// What registering did.
public enum RegistrationOutcome: Sendable, Equatable {
    /// A new registration.
    case created
    /// The device was already registered; its push token is now the one given.
    case existing
}

/// The orders of one type that changed for a device since a tag.
public struct ChangedOrders: Sendable, Equatable {
    public let orderIdentifiers: [String]
    /// The tag to hand back next time.
    public let lastModified: Int64

    public init(orderIdentifiers: [String], lastModified: Int64) {
        self.orderIdentifiers = orderIdentifiers
        self.lastModified = lastModified
    }
}
