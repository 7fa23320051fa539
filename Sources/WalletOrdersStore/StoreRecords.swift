import Foundation
import WalletOrdersModel

/// An order as stored: its document and what the store keeps beside it.
public struct StoredOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    /// order.json, server-filled fields included.
    public let document: OrderDocument
    public let status: String
    public let createdAt: Date
    /// The order's `updatedAt`, whole seconds; each update moves it forward at least one second.
    public let updatedAt: Date
    /// The global change counter's value when the order was last written.
    public let changeTag: Int64
    /// 1 when created, one more per update.
    public let version: Int
}

/// The fields of an order needed to answer a device, without its document.
public struct OrderHead: Sendable {
    public let authenticationToken: String
    public let updatedAt: Date
    public let changeTag: Int64
    public let version: Int
}

/// A device registered for an order's updates.
public struct Registration: Sendable, Codable, Equatable {
    public let deviceIdentifier: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let pushToken: String
    public let createdAt: Date
    public let updatedAt: Date
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
    /// The tag to hand back next time: the newest change among the device's orders.
    public let lastModified: Int64
}

/// A push waiting in, or gone through, the outbox.
public struct PushRecord: Sendable, Codable, Equatable {
    public let id: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let deviceIdentifier: String
    public let pushToken: String
    public let status: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let lastError: String?
    public let createdAt: Date
    public let updatedAt: Date
}

/// A message a device sent to the log endpoint.
public struct DeviceLogEntry: Sendable, Codable, Equatable {
    public let id: Int64
    public let receivedAt: Date
    public let remoteAddress: String?
    public let message: String
}

/// One line of an order listing.
public struct OrderSummary: Sendable, Codable, Equatable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let status: String
    public let createdAt: Date
    public let updatedAt: Date
    public let version: Int
    public let registrations: Int
    /// Where the next page starts (the listing is newest first).
    public let cursor: Int64
}

/// Why the store refused a write.
public enum StoreError: Error, Equatable, Sendable {
    /// An order with this type and identifier already exists.
    case orderExists
    /// No order has this type and identifier.
    case orderNotFound
    /// The order has no string `orderTypeIdentifier` and `orderIdentifier` to be stored under.
    case missingIdentifiers
}
