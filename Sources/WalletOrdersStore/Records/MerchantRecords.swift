import Foundation
import WalletOrdersModel

/// A shop the service serves orders for: its name, whether it may use the merchant API, the order types it may
/// use, its limits and what it uses of them. One of them, the default merchant, is the shop of a single-shop
/// deployment: the configuration's merchant keys act for it, and its orders keep the identifiers it gives them.
public struct Merchant: Sendable, Equatable, Codable {
    /// The default merchant's id and slug: made by the migration that brought merchants.
    public static let defaultID: Int64 = 1
    public static let defaultSlug = "default"

    public let id: Int64
    /// The merchant's name in identifiers and commands: lower-case letters, digits and hyphens.
    public let slug: String
    public var displayName: String
    public var status: MerchantStatus
    /// The order types it may use; empty: every type the service signs.
    public var orderTypes: [String]
    public var limits: MerchantLimits
    /// What it holds now, as its limits count it.
    public var usage: MerchantUsage
    /// 0 without a template of its own; one more each time one is set.
    public var templateVersion: Int
    /// After how many hours with no news of it (a carrier event, a change to its fulfillment) a parcel in transit is
    /// found stalled and moved to `issue`; nil: never (the default).
    public var stalledParcelAfterHours: Int?
    public let createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64,
        slug: String,
        displayName: String,
        status: MerchantStatus = .active,
        orderTypes: [String] = [],
        limits: MerchantLimits = MerchantLimits(),
        usage: MerchantUsage = MerchantUsage(),
        templateVersion: Int = 0,
        stalledParcelAfterHours: Int? = nil,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.slug = slug
        self.displayName = displayName
        self.status = status
        self.orderTypes = orderTypes
        self.limits = limits
        self.usage = usage
        self.templateVersion = templateVersion
        self.stalledParcelAfterHours = stalledParcelAfterHours
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var isDefault: Bool { id == Self.defaultID }

    /// The order types as both stores keep them: a JSON array of strings.
    public static func orderTypesText(_ types: [String]) -> String {
        String(decoding: JSONValue.array(types.map(JSONValue.string)).serialized(), as: UTF8.self)
    }

    /// The order types `orderTypesText` wrote.
    public static func orderTypes(text: String) -> [String] {
        (try? JSONValue.parse(Data(text.utf8)))?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// Whether a merchant's keys are accepted. A suspended merchant's orders keep serving devices.
public enum MerchantStatus: String, Sendable, Codable, CaseIterable {
    case active
    case suspended
}

/// What a merchant may hold and ask; nil is no limit of its own (the service's default applies to requests).
public struct MerchantLimits: Sendable, Equatable, Codable {
    /// Merchant API requests per second (a burst of as many).
    public var requestsPerSecond: Int?
    /// Orders stored.
    public var maxOrders: Int?
    /// Bytes stored of per-order files (images, return labels) and of version history (what each version changed,
    /// as its record keeps it), over all its orders.
    public var maxAssetBytes: Int?

    public init(requestsPerSecond: Int? = nil, maxOrders: Int? = nil, maxAssetBytes: Int? = nil) {
        self.requestsPerSecond = requestsPerSecond
        self.maxOrders = maxOrders
        self.maxAssetBytes = maxAssetBytes
    }

    /// The limit a write passes, if any, once what it `added` is counted in `usage`, what the merchant holds with
    /// it. A write is refused for a limit only when it adds to what that limit counts: one that frees room, or adds
    /// nothing there, always passes. Every store decides with this, in the write's transaction.
    public func passed(by usage: MerchantUsage, adding added: MerchantUsage) -> MerchantQuota? {
        if let maxOrders, added.orders > 0, usage.orders > maxOrders { return .maxOrders }
        if let maxAssetBytes, added.storedBytes > 0, usage.storedBytes > maxAssetBytes { return .maxAssetBytes }
        return nil
    }
}

/// What a merchant holds, as its limits count it (or, for a write, what the write adds to it).
public struct MerchantUsage: Sendable, Equatable, Codable {
    public var orders: Int
    /// Bytes of per-order files.
    public var assetBytes: Int
    /// Bytes of version history: the change records its orders' versions keep.
    public var historyBytes: Int

    public init(orders: Int = 0, assetBytes: Int = 0, historyBytes: Int = 0) {
        self.orders = orders
        self.assetBytes = assetBytes
        self.historyBytes = historyBytes
    }

    /// The bytes `maxAssetBytes` counts: files and history.
    public var storedBytes: Int { assetBytes + historyBytes }
}

/// Fields of a merchant to change; nil leaves one as it is.
public struct MerchantChange: Sendable {
    public var displayName: String?
    public var status: MerchantStatus?
    public var orderTypes: [String]?
    public var limits: MerchantLimits?
    /// `.some(nil)` stops finding parcels stalled.
    public var stalledParcelAfterHours: Int??

    public init(
        displayName: String? = nil,
        status: MerchantStatus? = nil,
        orderTypes: [String]? = nil,
        limits: MerchantLimits? = nil,
        stalledParcelAfterHours: Int?? = nil
    ) {
        self.displayName = displayName
        self.status = status
        self.orderTypes = orderTypes
        self.limits = limits
        self.stalledParcelAfterHours = stalledParcelAfterHours
    }
}

/// One of a merchant's API keys, as stored: never the key, only its SHA-256.
public struct MerchantKey: Sendable, Equatable {
    /// The key's public part (`wo_live_<id>_…`), by which it is looked up, listed and revoked.
    public let id: String
    public let merchantID: Int64
    /// SHA-256 of the whole key.
    public let hash: Data
    public let createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    public init(id: String, merchantID: Int64, hash: Data, createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.merchantID = merchantID
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

extension MerchantKey: APIKeyRecord {}

/// A limit that a write would pass.
public enum MerchantQuota: String, Sendable, Equatable {
    case maxOrders
    case maxAssetBytes
}
