import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Merchants, their templates and their keys.
extension SQLiteStore {
    public func createMerchant(
        slug: String,
        displayName: String,
        orderTypes: [String],
        limits: MerchantLimits
    ) async throws -> Merchant {
        let now = clock.now()
        let merchant = try await write { db in
            // The default merchant's identifiers are its own; one that already starts with `slug:` would meet the
            // new merchant's.
            let taken =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM merchants WHERE slug = ?1)
                            OR EXISTS (SELECT 1 FROM orders WHERE merchant_id = ?2 AND substr(order_identifier, 1, length(?1) + 1) = ?1 || ':')
                        """,
                    arguments: [slug, Merchant.defaultID]
                ) ?? true
            guard !taken else { throw StoreError.merchantExists }
            let id = try Int64.fetchOne(
                db,
                sql: """
                    INSERT INTO merchants (slug, display_name, order_types, requests_per_second, max_orders, max_asset_bytes,
                                           created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """,
                arguments: [
                    slug, displayName, Merchant.orderTypesText(orderTypes), limits.requestsPerSecond, limits.maxOrders,
                    limits.maxAssetBytes, now.unixSeconds, now.unixSeconds,
                ]
            )
            try Self.bumpMerchantsVersion(db)
            guard let id, let merchant = try Self.fetchMerchant(db, id: id) else {
                throw StoreError.unexpected("the new merchant \(slug) cannot be read back")
            }
            return merchant
        }
        hub.publish(.merchantsChanged)
        return merchant
    }

    public func updateMerchant(slug: String, _ change: MerchantChange) async throws -> Merchant? {
        let now = clock.now()
        let merchant = try await write { db -> Merchant? in
            guard let current = try Self.fetchMerchant(db, slug: slug) else { return nil }
            let limits = change.limits ?? current.limits
            try db.execute(
                sql: """
                    UPDATE merchants SET display_name = ?, status = ?, order_types = ?, requests_per_second = ?, max_orders = ?,
                                         max_asset_bytes = ?, stalled_parcel_hours = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    change.displayName ?? current.displayName, (change.status ?? current.status).rawValue,
                    Merchant.orderTypesText(change.orderTypes ?? current.orderTypes), limits.requestsPerSecond, limits.maxOrders,
                    limits.maxAssetBytes, change.stalledParcelAfterHours ?? current.stalledParcelAfterHours, now.unixSeconds,
                    current.id,
                ]
            )
            try Self.bumpMerchantsVersion(db)
            return try Self.fetchMerchant(db, id: current.id)
        }
        if merchant != nil { hub.publish(.merchantsChanged) }
        return merchant
    }

    public func merchants() async throws -> [Merchant] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.merchantColumns) FROM merchants ORDER BY id").map(Self.merchant)
        }
    }

    public func setMerchantTemplate(slug: String, template: Data?) async throws -> Merchant? {
        let now = clock.now()
        let merchant = try await write { db -> Merchant? in
            try db.execute(
                sql: """
                    UPDATE merchants SET template = ?, template_version = template_version + 1, updated_at = ? WHERE slug = ?
                    """,
                arguments: [template, now.unixSeconds, slug]
            )
            guard db.changesCount == 1 else { return nil }
            try Self.bumpMerchantsVersion(db)
            return try Self.fetchMerchant(db, slug: slug)
        }
        if merchant != nil { hub.publish(.merchantsChanged) }
        return merchant
    }

    public func merchantTemplate(merchantID: Int64) async throws -> (version: Int, data: Data)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT template, template_version FROM merchants WHERE id = ?",
                    arguments: [merchantID]
                ),
                let data = row["template"] as Data?
            else { return nil }
            return (row["template_version"], data)
        }
    }

    public func addMerchantKey(_ key: MerchantKey) async throws {
        try await addKey(.merchant, id: key.id, owner: key.merchantID, hash: key.hash, createdAt: key.createdAt)
    }

    public func merchantKeys(merchantID: Int64?) async throws -> [MerchantKey] {
        try await keys(.merchant, owner: merchantID).map(MerchantKey.init)
    }

    public func revokeMerchantKey(merchantID: Int64, keyID: String) async throws -> Bool {
        try await revokeKey(.merchant, owner: merchantID, keyID: keyID, now: clock.now())
    }

    // Merchants' and partners' keys: tables alike but for their owner's column. Their names are the store's own,
    // never a caller's.

    func addKey(_ table: APIKeyRow.Table, id: String, owner: Int64, hash: Data, createdAt: Date) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO \(table.name) (id, \(table.owner), hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [id, owner, hash, createdAt.unixSeconds]
            )
            try Self.bumpMerchantsVersion(db)
        }
        hub.publish(.merchantsChanged)
    }

    func keys(_ table: APIKeyRow.Table, owner: Int64?) async throws -> [APIKeyRow] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, \(table.owner) AS owner, hash, created_at, last_used_at, revoked_at FROM \(table.name)
                    WHERE ?1 IS NULL OR \(table.owner) = ?1 ORDER BY created_at, id
                    """,
                arguments: [owner]
            ).map { row in
                APIKeyRow(
                    id: row["id"],
                    ownerID: row["owner"],
                    hash: row["hash"],
                    createdAt: Date(unixSeconds: row["created_at"]),
                    lastUsedAt: (row["last_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                    revokedAt: (row["revoked_at"] as Int64?).map(Date.init(unixSeconds:))
                )
            }
        }
    }

    func revokeKey(_ table: APIKeyRow.Table, owner: Int64, keyID: String, now: Date) async throws -> Bool {
        let revoked = try await write { db -> Bool in
            try db.execute(
                sql: "UPDATE \(table.name) SET revoked_at = ? WHERE id = ? AND \(table.owner) = ? AND revoked_at IS NULL",
                arguments: [now.unixSeconds, keyID, owner]
            )
            guard db.changesCount == 1 else { return false }
            try Self.bumpMerchantsVersion(db)
            return true
        }
        if revoked { hub.publish(.merchantsChanged) }
        return revoked
    }

    public func recordKeyUse(_ uses: [String: Date]) async throws {
        guard !uses.isEmpty else { return }
        try await write { db in
            for table in [APIKeyRow.Table.merchant, .partner] {
                let statement = try db.cachedStatement(
                    sql: "UPDATE \(table.name) SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?"
                )
                for (id, time) in uses { try statement.execute(arguments: [time.unixSeconds, id]) }
            }
        }
    }

    public func merchantsVersion() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'merchants'") ?? 0
        }
    }

    static func bumpMerchantsVersion(_ db: Database) throws {
        try db.execute(sql: "UPDATE counters SET value = value + 1 WHERE name = 'merchants'")
    }

    static let merchantColumns = """
        id, slug, display_name, status, order_types, requests_per_second, max_orders, max_asset_bytes, orders_stored,
        asset_bytes, history_bytes, template_version, stalled_parcel_hours, created_at, updated_at
        """

    static func fetchMerchant(_ db: Database, id: Int64) throws -> Merchant? {
        try Row.fetchOne(db, sql: "SELECT \(merchantColumns) FROM merchants WHERE id = ?", arguments: [id]).map(merchant)
    }

    static func fetchMerchant(_ db: Database, slug: String) throws -> Merchant? {
        try Row.fetchOne(db, sql: "SELECT \(merchantColumns) FROM merchants WHERE slug = ?", arguments: [slug]).map(merchant)
    }

    static func merchant(_ row: Row) -> Merchant {
        Merchant(
            id: row["id"],
            slug: row["slug"],
            displayName: row["display_name"],
            status: MerchantStatus(rawValue: row["status"]) ?? .suspended,
            orderTypes: Merchant.orderTypes(text: row["order_types"]),
            limits: MerchantLimits(
                requestsPerSecond: row["requests_per_second"],
                maxOrders: row["max_orders"],
                maxAssetBytes: row["max_asset_bytes"]
            ),
            usage: MerchantUsage(
                orders: row["orders_stored"],
                assetBytes: row["asset_bytes"],
                historyBytes: row["history_bytes"]
            ),
            templateVersion: row["template_version"],
            stalledParcelAfterHours: row["stalled_parcel_hours"],
            createdAt: Date(unixSeconds: row["created_at"]),
            updatedAt: Date(unixSeconds: row["updated_at"])
        )
    }
}
