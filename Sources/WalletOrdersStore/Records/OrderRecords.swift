import Foundation
import WalletOrdersModel

/// An order as stored: its document and what the store keeps beside it.
public struct StoredOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    /// order.json, server-filled fields included.
    public let document: OrderDocument
    public let status: Order.Status
    public let createdAt: Date
    /// The order's `updatedAt`, whole seconds; each update moves it forward at least one second.
    public let updatedAt: Date
    /// Orders the writes for "which orders changed since": a newer write of any order of the type has a larger tag.
    public let changeTag: Int64
    /// 1 when created, one more per update.
    public let version: Int
    /// The merchant whose order it is.
    public let merchantID: Int64

    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        authenticationToken: String,
        document: OrderDocument,
        status: Order.Status,
        createdAt: Date,
        updatedAt: Date,
        changeTag: Int64,
        version: Int,
        merchantID: Int64 = Merchant.defaultID
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.changeTag = changeTag
        self.version = version
        self.merchantID = merchantID
    }

    /// What `write` became once a store committed it as `version` with `changeTag`: its dates at whole seconds, as
    /// stored, and created at `createdAt` (unix seconds) when the store kept an earlier creation time than the
    /// write's (an update).
    public init(committed write: OrderWrite, changeTag: Int64, version: Int, createdAt: Int64? = nil) {
        self.init(
            orderTypeIdentifier: write.orderTypeIdentifier,
            orderIdentifier: write.orderIdentifier,
            authenticationToken: write.authenticationToken,
            document: write.document,
            status: write.status,
            createdAt: Date(unixSeconds: createdAt ?? write.createdAt.unixSeconds),
            updatedAt: Date(unixSeconds: write.updatedAt.unixSeconds),
            changeTag: changeTag,
            version: version,
            merchantID: write.merchantID
        )
    }

    /// The head of this order, without its document.
    public var head: OrderHead {
        OrderHead(authenticationToken: authenticationToken, updatedAt: updatedAt, changeTag: changeTag, version: version)
    }
}

/// An order and its per-order files, as the write path reads them before building the next version.
public struct CurrentOrder: Sendable {
    public let order: StoredOrder
    /// The merchant's per-order files (images, return labels), by package path.
    public let assets: [String: Data]

    public init(order: StoredOrder, assets: [String: Data]) {
        self.order = order
        self.assets = assets
    }
}

/// One version of an order, ready to commit: built, validated and signed before any transaction starts.
public struct OrderWrite: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    public let document: OrderDocument
    public let createdAt: Date
    public let updatedAt: Date
    /// The per-order files of this version; nil when an update leaves them as they were.
    public let assets: [String: Data]?
    /// What is kept of this version's signed package, opaque to the store: its seal (the signature and digests of
    /// what it signed, from which the service assembles the same package again), or the package itself when its key
    /// makes no seals.
    public let package: Data
    /// The merchant whose order it is; an update keeps the order's merchant.
    public let merchantID: Int64
    /// The merchant's limits on what it stores, checked in the write's transaction.
    public let limits: MerchantLimits
    /// Who made this version.
    public let author: VersionAuthor
    /// The parcels its fulfillments follow, when they differ from the last version's (nil: as they were).
    public let tracking: [TrackedParcel]?
    /// What changed from the version before, as this version's history row keeps it (`OrderVersion.record`); nil
    /// for a first version.
    public let changeRecord: String?
    /// What committing it causes beyond itself: pushes and webhook events.
    public var effects: WriteEffects

    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        authenticationToken: String,
        document: OrderDocument,
        createdAt: Date,
        updatedAt: Date,
        assets: [String: Data]?,
        package: Data,
        merchantID: Int64 = Merchant.defaultID,
        limits: MerchantLimits = MerchantLimits(),
        author: VersionAuthor = .merchant(Merchant.defaultSlug),
        tracking: [TrackedParcel]? = nil,
        changes: JSONChanges? = nil,
        effects: WriteEffects = .none
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.assets = assets
        self.package = package
        self.merchantID = merchantID
        self.limits = limits
        self.author = author
        self.tracking = tracking
        self.changeRecord = changes.map { OrderVersion.record($0.listed, more: $0.more) }
        self.effects = effects
    }

    /// The order's `orderNumber`, by which a checkout that knows only its own number finds it.
    public var orderNumber: String? { document["orderNumber"]?.stringValue }

    /// The bytes of its per-order files, as a merchant's `maxAssetBytes` counts them; nil when unchanged.
    public var assetBytes: Int? { assets.map { $0.values.reduce(0) { $0 + $1.count } } }

    /// The bytes of version history it adds, as a merchant's `maxAssetBytes` counts them: its change record's.
    public var historyBytes: Int { changeRecord?.utf8.count ?? 0 }

    /// The order's status as its document says (`open` when it says nothing the store knows).
    public var status: Order.Status {
        document["status"]?.stringValue.flatMap(Order.Status.init(rawValue:)) ?? .open
    }
}

/// What committing a new version did.
public struct OrderUpdate: Sendable {
    public let order: StoredOrder
    /// How many devices were registered, each with a push queued (or already pending).
    public let pushesQueued: Int

    public init(order: StoredOrder, pushesQueued: Int) {
        self.order = order
        self.pushesQueued = pushesQueued
    }
}

/// The fields of an order needed to answer a device, without its document.
public struct OrderHead: Sendable, Equatable {
    public let authenticationToken: String
    public let updatedAt: Date
    public let changeTag: Int64
    public let version: Int

    public init(authenticationToken: String, updatedAt: Date, changeTag: Int64, version: Int) {
        self.authenticationToken = authenticationToken
        self.updatedAt = updatedAt
        self.changeTag = changeTag
        self.version = version
    }
}

/// An order's head and, when one is stored for its current version, what is kept of its signed package (see
/// `OrderWrite.package`).
public struct FetchedOrder: Sendable {
    public let head: OrderHead
    public let package: Data?

    public init(head: OrderHead, package: Data?) {
        self.head = head
        self.package = package
    }
}

/// One line of an order listing.
public struct OrderSummary: Sendable, Codable, Equatable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let status: Order.Status
    public let createdAt: Date
    public let updatedAt: Date
    public let version: Int
    /// How many devices are registered for the order.
    public let registrations: Int
    /// The shop's own number for the order, when it gave one.
    public let orderNumber: String?
    /// The merchant whose order it is; left out of the JSON form (the merchant API answers a merchant its own).
    public private(set) var merchantID: Int64 = Merchant.defaultID

    private enum CodingKeys: String, CodingKey {
        case orderTypeIdentifier, orderIdentifier, status, createdAt, updatedAt, version, registrations, orderNumber
    }

    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        status: Order.Status,
        createdAt: Date,
        updatedAt: Date,
        version: Int,
        registrations: Int,
        orderNumber: String? = nil,
        merchantID: Int64 = Merchant.defaultID
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.registrations = registrations
        self.orderNumber = orderNumber
        self.merchantID = merchantID
    }
}

/// Which orders a listing shows.
public struct OrderFilter: Sendable {
    public var type: String?
    public var status: Order.Status?
    public var updatedSince: Date?
    /// Only one merchant's orders.
    public var merchant: Int64?
    /// Only orders with this `orderNumber` (with `merchant`).
    public var orderNumber: String?
    /// Only the orders this text names, exactly, as any of: Wallet's order identifier, the shop's order number, a
    /// parcel's tracking number, a registered device's identifier; or as the start of a registered push token
    /// (at least 8 hexadecimal digits).
    public var text: String?
    /// Only orders created at or after this time.
    public var createdFrom: Date?
    /// Only orders created before this time.
    public var createdBefore: Date?
    /// Oldest first (by when the store took them), rather than newest first; pages then go forward in time.
    public var oldestFirst: Bool

    public init(
        type: String? = nil,
        status: Order.Status? = nil,
        updatedSince: Date? = nil,
        merchant: Int64? = nil,
        orderNumber: String? = nil,
        text: String? = nil,
        createdFrom: Date? = nil,
        createdBefore: Date? = nil,
        oldestFirst: Bool = false
    ) {
        self.type = type
        self.status = status
        self.updatedSince = updatedSince
        self.merchant = merchant
        self.orderNumber = orderNumber
        self.text = text
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.oldestFirst = oldestFirst
    }

    /// The push token prefix `text` can be: 8 or more hexadecimal digits, lowercased as tokens are stored.
    public var pushTokenPrefix: String? {
        guard let text, text.count >= 8, text.allSatisfy(\.isHexDigit) else { return nil }
        return text.lowercased()
    }
}
