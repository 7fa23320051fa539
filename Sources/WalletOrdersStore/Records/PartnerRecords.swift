import Foundation

/// A logistics partner: a carrier, a fulfilment house or a carrier aggregator that publishes the shipping updates of
/// some merchants' orders. Its keys may change those orders' fulfillments and post tracking events, nothing else.
public struct Partner: Sendable, Equatable, Codable {
    public let id: Int64
    /// Its name in commands and in each version it makes: lower-case letters, digits and hyphens.
    public let name: String
    /// The merchants whose orders it may update, by id.
    public var merchantIDs: [Int64]
    /// The carrier aggregator whose webhook brings its events (`aftership`, `easypost`), when it has one.
    public var provider: String?
    /// The secret that aggregator signs its webhooks with; never shown again after it is set.
    public var providerSecret: String?
    public let createdAt: Date

    public init(
        id: Int64,
        name: String,
        merchantIDs: [Int64],
        provider: String? = nil,
        providerSecret: String? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.merchantIDs = merchantIDs
        self.provider = provider
        self.providerSecret = providerSecret
        self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, merchantIDs, provider, createdAt
    }

    /// Everything but the provider's secret.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(merchantIDs, forKey: .merchantIDs)
        try container.encodeIfPresent(provider, forKey: .provider)
        try container.encode(createdAt, forKey: .createdAt)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int64.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            merchantIDs: try container.decode([Int64].self, forKey: .merchantIDs),
            provider: try container.decodeIfPresent(String.self, forKey: .provider),
            createdAt: try container.decode(Date.self, forKey: .createdAt)
        )
    }
}

/// What an operator changes of a partner: each field nil is left as it is.
public struct PartnerChange: Sendable, Equatable {
    /// The merchants whose orders it may update, by id: the whole list.
    public var merchantIDs: [Int64]?
    public var provider: String?
    public var providerSecret: String?

    public init(merchantIDs: [Int64]? = nil, provider: String? = nil, providerSecret: String? = nil) {
        self.merchantIDs = merchantIDs
        self.provider = provider
        self.providerSecret = providerSecret
    }
}

/// One of a partner's keys, as stored: never the key, only its SHA-256.
public struct PartnerKey: Sendable, Equatable {
    /// The key's public part (`wo_partner_<id>_…`).
    public let id: String
    public let partnerID: Int64
    /// SHA-256 of the whole key.
    public let hash: Data
    public let createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    public init(id: String, partnerID: Int64, hash: Data, createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.partnerID = partnerID
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

extension PartnerKey: APIKeyRecord {}

/// Who made a version of an order: a merchant, one of its logistics partners, a connected shop, an operator, or the
/// service itself. Kept with each version as text: `merchant:acme`, `partner:dhl`, `shop:<id>`, `operator`, `service`.
public struct VersionAuthor: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let text: String

    public init(text: String) {
        self.text = text
    }

    public static func merchant(_ slug: String) -> VersionAuthor { VersionAuthor(text: "merchant:\(slug)") }
    public static func partner(_ name: String) -> VersionAuthor { VersionAuthor(text: "partner:\(name)") }
    public static let `operator` = VersionAuthor(text: "operator")
    /// A connected shop's webhook, by the connection's id.
    public static func shop(_ id: String) -> VersionAuthor { VersionAuthor(text: "shop:\(id)") }
    /// The service itself: a parcel it found stalled.
    public static let service = VersionAuthor(text: "service")

    public var description: String { text }
}
