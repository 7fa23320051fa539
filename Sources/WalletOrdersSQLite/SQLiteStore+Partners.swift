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
        providerSecret: String?
    ) async throws -> Partner {
        let now = clock.now()
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

    public func changePartner(id: Int64, _ change: PartnerChange) async throws -> Partner? {
        let found = try await write { db -> Bool in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM partners WHERE id = ?)", arguments: [id]) == true else {
                return false
            }
            if let merchantIDs = change.merchantIDs {
                try db.execute(sql: "DELETE FROM partner_merchants WHERE partner_id = ?", arguments: [id])
                for merchant in Set(merchantIDs) {
                    try db.execute(
                        sql: "INSERT INTO partner_merchants (partner_id, merchant_id) VALUES (?, ?)",
                        arguments: [id, merchant]
                    )
                }
            }
            if let provider = change.provider {
                try db.execute(sql: "UPDATE partners SET provider = ? WHERE id = ?", arguments: [provider, id])
            }
            if let secret = change.providerSecret {
                try db.execute(sql: "UPDATE partners SET provider_secret = ? WHERE id = ?", arguments: [secret, id])
            }
            try Self.bumpMerchantsVersion(db)
            return true
        }
        guard found else { return nil }
        hub.publish(.merchantsChanged)
        return try await partners().first { $0.id == id }
    }

    public func deletePartner(id: Int64, eventSource: String) async throws -> Bool {
        let deleted = try await write { db -> Bool in
            try db.execute(sql: "DELETE FROM partner_keys WHERE partner_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM partner_merchants WHERE partner_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM tracking_events WHERE source = ?", arguments: [eventSource])
            try db.execute(sql: "DELETE FROM partners WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { return false }
            try Self.bumpMerchantsVersion(db)
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
