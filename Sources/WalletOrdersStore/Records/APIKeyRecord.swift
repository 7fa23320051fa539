import Foundation

/// What listings show of a stored API key, a merchant's or a partner's: everything but its hash, which never leaves
/// the store and the service.
public protocol APIKeyRecord: Encodable, Sendable {
    /// The key's public part, by which it is looked up, listed and revoked.
    var id: String { get }
    var createdAt: Date { get }
    var lastUsedAt: Date? { get }
    var revokedAt: Date? { get }
}

private enum APIKeyCodingKeys: String, CodingKey {
    case id, createdAt, lastUsedAt, revokedAt
}

extension APIKeyRecord {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: APIKeyCodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(lastUsedAt, forKey: .lastUsedAt)
        try container.encodeIfPresent(revokedAt, forKey: .revokedAt)
    }
}

/// A stored key as both key tables hold it, before it becomes a merchant's or a partner's record.
public struct APIKeyRow: Sendable {
    public let id: String
    /// The merchant's or the partner's id.
    public let ownerID: Int64
    public let hash: Data
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let revokedAt: Date?

    public init(id: String, ownerID: Int64, hash: Data, createdAt: Date, lastUsedAt: Date?, revokedAt: Date?) {
        self.id = id
        self.ownerID = ownerID
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }

    /// The two tables of keys, alike but for whose keys they hold.
    public enum Table: Sendable {
        case merchant
        case partner

        public var name: String { self == .merchant ? "merchant_keys" : "partner_keys" }
        /// The column naming the key's holder.
        public var owner: String { self == .merchant ? "merchant_id" : "partner_id" }
    }
}

extension MerchantKey {
    public init(_ row: APIKeyRow) {
        self.init(
            id: row.id,
            merchantID: row.ownerID,
            hash: row.hash,
            createdAt: row.createdAt,
            lastUsedAt: row.lastUsedAt,
            revokedAt: row.revokedAt
        )
    }
}

extension PartnerKey {
    public init(_ row: APIKeyRow) {
        self.init(
            id: row.id,
            partnerID: row.ownerID,
            hash: row.hash,
            createdAt: row.createdAt,
            lastUsedAt: row.lastUsedAt,
            revokedAt: row.revokedAt
        )
    }
}
