import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Logistics partners and their keys. Every change moves the merchants' version on, as merchants' own do: the
/// directory that authenticates keys reads both.
extension SQLiteStore {
    public func createPartner(
        name: String,
        merchantIDs: [Int64],
        provider: String?,
        providerSecret: String?,
        now: Date
    ) async throws -> Partner {
        let partner = try await write { db -> Partner in
            let taken = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM partners WHERE name = ?)", arguments: [name])
            guard taken == false else { throw StoreError.partnerExists }
            try db.execute(
                sql: "INSERT INTO partners (name, provider, provider_secret, created_at) VALUES (?, ?, ?, ?)",
                arguments: [name, provider, providerSecret, now.unixSeconds]
            )
            let id = db.lastInsertedRowID
            for merchant in Set(merchantIDs) {
                try db.execute(
                    sql: "INSERT INTO partner_merchants (partner_id, merchant_id) VALUES (?, ?)",
                    arguments: [id, merchant]
                )
            }
            try Self.bumpMerchantsVersion(db)
            return Partner(
                id: id,
                name: name,
                merchantIDs: Set(merchantIDs).sorted(),
                provider: provider,
                providerSecret: providerSecret,
                createdAt: Date(unixSeconds: now.unixSeconds)
            )
        }
        hub.publish(.merchantsChanged)
        return partner
    }

    public func partners() async throws -> [Partner] {
        try await pool.read { db in
            var merchants: [Int64: [Int64]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT partner_id, merchant_id FROM partner_merchants ORDER BY merchant_id") {
                merchants[row["partner_id"], default: []].append(row["merchant_id"])
            }
            return try Row.fetchAll(db, sql: "SELECT id, name, provider, provider_secret, created_at FROM partners ORDER BY id")
                .map { row in
                    Partner(
                        id: row["id"],
                        name: row["name"],
                        merchantIDs: merchants[row["id"]] ?? [],
                        provider: row["provider"],
                        providerSecret: row["provider_secret"],
                        createdAt: Date(unixSeconds: row["created_at"])
                    )
                }
        }
    }

    public func addPartnerKey(_ key: PartnerKey) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO partner_keys (id, partner_id, hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [key.id, key.partnerID, key.hash, key.createdAt.unixSeconds]
            )
            try Self.bumpMerchantsVersion(db)
        }
        hub.publish(.merchantsChanged)
    }

    public func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, partner_id, hash, created_at, last_used_at, revoked_at FROM partner_keys
                    WHERE ?1 IS NULL OR partner_id = ?1 ORDER BY created_at, id
                    """,
                arguments: [partnerID]
            ).map { row in
                PartnerKey(
                    id: row["id"],
                    partnerID: row["partner_id"],
                    hash: row["hash"],
                    createdAt: Date(unixSeconds: row["created_at"]),
                    lastUsedAt: (row["last_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                    revokedAt: (row["revoked_at"] as Int64?).map(Date.init(unixSeconds:))
                )
            }
        }
    }

    public func revokePartnerKey(partnerID: Int64, keyID: String, now: Date) async throws -> Bool {
        let revoked = try await write { db -> Bool in
            try db.execute(
                sql: "UPDATE partner_keys SET revoked_at = ? WHERE id = ? AND partner_id = ? AND revoked_at IS NULL",
                arguments: [now.unixSeconds, keyID, partnerID]
            )
            guard db.changesCount == 1 else { return false }
            try Self.bumpMerchantsVersion(db)
            return true
        }
        if revoked { hub.publish(.merchantsChanged) }
        return revoked
    }
}
