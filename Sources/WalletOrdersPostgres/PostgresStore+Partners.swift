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
        providerSecret: String?
    ) async throws -> Partner {
        let now = clock.now()
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
        ).map { row in
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

    public func changePartner(id: Int64, _ change: PartnerChange) async throws -> Partner? {
        let found = try await transaction { connection -> Bool in
            let rows = try await connection.query(
                """
                UPDATE partners SET provider = COALESCE(\(change.provider), provider),
                                    provider_secret = COALESCE(\(change.providerSecret), provider_secret)
                WHERE id = \(id) RETURNING id
                """,
                logger: self.logger
            ).collect()
            guard !rows.isEmpty else { return false }
            if let merchantIDs = change.merchantIDs {
                try await connection.query("DELETE FROM partner_merchants WHERE partner_id = \(id)", logger: self.logger)
                try await connection.query(
                    """
                    INSERT INTO partner_merchants (partner_id, merchant_id) SELECT \(id), unnest(\(Set(merchantIDs).sorted())::bigint[])
                    """,
                    logger: self.logger
                )
            }
            try await self.merchantsChanged(connection)
            return true
        }
        guard found else { return nil }
        hub.publish(.merchantsChanged)
        return try await partners().first { $0.id == id }
    }

    public func deletePartner(id: Int64, eventSource: String) async throws -> Bool {
        let deleted = try await transaction { connection -> Bool in
            try await connection.query("DELETE FROM partner_keys WHERE partner_id = \(id)", logger: self.logger)
            try await connection.query("DELETE FROM partner_merchants WHERE partner_id = \(id)", logger: self.logger)
            try await connection.query("DELETE FROM tracking_events WHERE source = \(eventSource)", logger: self.logger)
            let rows = try await connection.query("DELETE FROM partners WHERE id = \(id) RETURNING id", logger: self.logger).collect()
            guard !rows.isEmpty else { return false }
            try await self.merchantsChanged(connection)
            return true
        }
        if deleted { hub.publish(.merchantsChanged) }
        return deleted
    }

    public func addPartnerKey(_ key: PartnerKey) async throws {
        try await addKey(.partner, id: key.id, owner: key.partnerID, hash: key.hash, createdAt: key.createdAt)
    }

    public func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey] {
        try await keys(.partner, owner: partnerID).map(PartnerKey.init)
    }

    public func revokePartnerKey(partnerID: Int64, keyID: String) async throws -> Bool {
        try await revokeKey(.partner, owner: partnerID, keyID: keyID, now: clock.now())
    }
}
