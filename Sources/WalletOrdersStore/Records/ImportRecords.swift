import Foundation
import WalletOrdersModel

/// An order loaded in bulk: its first version, with its package when one is at hand.
public struct ImportedOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    public let document: OrderDocument
    public let createdAt: Date
    public let updatedAt: Date
    public let package: Data?
    public let merchantID: Int64
    /// The parcels its fulfillments follow, by which tracking events and the console's search find it.
    public let tracking: [TrackedParcel]

    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        authenticationToken: String,
        document: OrderDocument,
        createdAt: Date,
        updatedAt: Date,
        package: Data?,
        merchantID: Int64 = Merchant.defaultID,
        tracking: [TrackedParcel] = []
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.package = package
        self.merchantID = merchantID
        self.tracking = tracking
    }
}

/// A registration loaded in bulk.
public struct ImportedRegistration: Sendable {
    public let deviceIdentifier: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let pushToken: String
    public let createdAt: Date

    public init(
        deviceIdentifier: String,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        pushToken: String,
        createdAt: Date
    ) {
        self.deviceIdentifier = deviceIdentifier
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.pushToken = pushToken
        self.createdAt = createdAt
    }
}
