import Foundation
import NIOCore
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// Logistics partners and their keys. Every change moves `counters.merchants` on and tells every instance, as
/// merchants' own changes do: the directory that authenticates keys reads both.
extension PostgresStore {
    public func createPartner(
        name: String,
        merchantIDs: [Int64],
        provider: String?,
        providerSecret: String?,
        now: Date
    ) async throws -> Partner {
        let merchants = Set(merchantIDs).sorted()
        let partner = try await transaction { connection -> Partner in
            let rows = try await connection.query(
                """
                INSERT INTO partners (name, provider, provider_secret, created_at)
                VALUES (\(name), \(provider), \(providerSecret), \(now.unixSeconds))
                ON CONFLICT (name) DO NOTHING
                RETURNING id
                """,
                logger: self.logger
            ).collect()
            guard let id = try rows.first?.decode(Int64.self) else { throw StoreError.partnerExists }
            try await connection.query(
                """
                INSERT INTO partner_merchants (partner_id, merchant_id) SELECT \(id), unnest(\(merchants)::bigint[])
                """,
                logger: self.logger
            )
            try await self.merchantsChanged(connection)
            return Partner(
                id: id,
                name: name,
                merchantIDs: merchants,
                provider: provider,
                providerSecret: providerSecret,
                createdAt: Date(unixSeconds: now.unixSeconds)
            )
        }
        hub.publish(.merchantsChanged)
        return partner
    }

    public func partners() async throws -> [Partner] {
        try await client.query(
            """
            SELECT p.id, p.name, p.provider, p.provider_secret, p.created_at,
                   COALESCE(array_agg(m.merchant_id ORDER BY m.merchant_id) FILTER (WHERE m.merchant_id IS NOT NULL),
                            '{}') AS merchants
            FROM partners p LEFT JOIN partner_merchants m ON m.partner_id = p.id
            GROUP BY p.id ORDER BY p.id
            """,
            logger: logger
        ).collect().map { row in
            let columns = Columns(row)
            return Partner(
                id: try columns["id"],
                name: try columns["name"],
                merchantIDs: try columns["merchants"],
                provider: try columns["provider"],
                providerSecret: try columns["provider_secret"],
                createdAt: Date(unixSeconds: try columns["created_at"])
            )
        }
    }

    public func addPartnerKey(_ key: PartnerKey) async throws {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO partner_keys (id, partner_id, hash, created_at)
                VALUES (\(key.id), \(key.partnerID), \(ByteBuffer(bytes: key.hash)), \(key.createdAt.unixSeconds))
                """,
                logger: self.logger
            )
            try await self.merchantsChanged(connection)
        }
        hub.publish(.merchantsChanged)
    }

    public func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey] {
        try await client.query(
            """
            SELECT id, partner_id, hash, created_at, last_used_at, revoked_at FROM partner_keys
            WHERE \(partnerID)::bigint IS NULL OR partner_id = \(partnerID) ORDER BY created_at, id
            """,
            logger: logger
        ).collect().map { row in
            let columns = Columns(row)
            let hash: ByteBuffer = try columns["hash"]
            return PartnerKey(
                id: try columns["id"],
                partnerID: try columns["partner_id"],
                hash: Data(buffer: hash),
                createdAt: Date(unixSeconds: try columns["created_at"]),
                lastUsedAt: (try columns["last_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                revokedAt: (try columns["revoked_at"] as Int64?).map(Date.init(unixSeconds:))
            )
        }
    }

    public func revokePartnerKey(partnerID: Int64, keyID: String, now: Date) async throws -> Bool {
        let revoked = try await transaction { connection -> Bool in
            let rows = try await connection.query(
                """
                UPDATE partner_keys SET revoked_at = \(now.unixSeconds)
                WHERE id = \(keyID) AND partner_id = \(partnerID) AND revoked_at IS NULL
                RETURNING id
                """,
                logger: self.logger
            ).collect()
            guard !rows.isEmpty else { return false }
            try await self.merchantsChanged(connection)
            return true
        }
        if revoked { hub.publish(.merchantsChanged) }
        return revoked
    }
}
