import Foundation
import Logging
import NIOCore
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// Merchants, their templates and their keys. Every change moves `counters.merchants` on and tells every instance
/// (`NOTIFY`), so that their caches read the merchants again.
extension PostgresStore {
    public func createMerchant(
        slug: String,
        displayName: String,
        orderTypes: [String],
        limits: MerchantLimits
    ) async throws -> Merchant {
        let now = clock.now()
        let merchant = try await transaction { connection -> Merchant in
            // The default merchant's identifiers are its own; one that already starts with `slug:` would meet the
            // new merchant's.
            let prefix = slug + ":"
            let taken = try await connection.query(
                """
                SELECT 1 FROM merchants WHERE slug = \(slug)
                UNION ALL
                SELECT 1 FROM orders WHERE merchant_id = \(Merchant.defaultID) AND left(order_identifier, \(prefix.count)::integer) = \(prefix)
                LIMIT 1
                """,
                logger: self.logger
            ).collect()
            guard taken.isEmpty else { throw StoreError.merchantExists }
            let rows = try await connection.query(
                """
                INSERT INTO merchants (slug, display_name, order_types, requests_per_second, max_orders, max_asset_bytes,
                                       created_at, updated_at)
                VALUES (\(slug), \(displayName), \(Merchant.orderTypesText(orderTypes)), \(limits.requestsPerSecond.map(Int64.init)),
                        \(limits.maxOrders.map(Int64.init)), \(limits.maxAssetBytes.map(Int64.init)), \(now.unixSeconds),
                        \(now.unixSeconds))
                ON CONFLICT (slug) DO NOTHING
                RETURNING \(unescaped: Self.merchantColumns)
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first else { throw StoreError.merchantExists }
            try await self.merchantsChanged(connection)
            return try Self.merchant(row)
        }
        hub.publish(.merchantsChanged)
        return merchant
    }

    public func updateMerchant(slug: String, _ change: MerchantChange) async throws -> Merchant? {
        let now = clock.now()
        let merchant = try await transaction { connection -> Merchant? in
            let current = try await connection.query(
                "SELECT \(unescaped: Self.merchantColumns) FROM merchants WHERE slug = \(slug) FOR UPDATE",
                logger: self.logger
            ).collect()
            guard let row = current.first else { return nil }
            let merchant = try Self.merchant(row)
            let limits = change.limits ?? merchant.limits
            let updated = try await connection.query(
                """
                UPDATE merchants SET display_name = \(change.displayName ?? merchant.displayName),
                                     status = \((change.status ?? merchant.status).rawValue),
                                     order_types = \(Merchant.orderTypesText(change.orderTypes ?? merchant.orderTypes)),
                                     requests_per_second = \(limits.requestsPerSecond.map(Int64.init)),
                                     max_orders = \(limits.maxOrders.map(Int64.init)),
                                     max_asset_bytes = \(limits.maxAssetBytes.map(Int64.init)),
                                     stalled_parcel_hours = \((change.stalledParcelAfterHours ?? merchant.stalledParcelAfterHours).map(Int32.init)),
                                     updated_at = \(now.unixSeconds)
                WHERE id = \(merchant.id)
                RETURNING \(unescaped: Self.merchantColumns)
                """,
                logger: self.logger
            ).collect()
            try await self.merchantsChanged(connection)
            return try updated.first.map(Self.merchant)
        }
        if merchant != nil { hub.publish(.merchantsChanged) }
        return merchant
    }

    public func merchants() async throws -> [Merchant] {
        try await client.query("SELECT \(unescaped: Self.merchantColumns) FROM merchants ORDER BY id", logger: logger)
            .map(Self.merchant)
    }

    public func setMerchantTemplate(slug: String, template: Data?) async throws -> Merchant? {
        let now = clock.now()
        let merchant = try await transaction { connection -> Merchant? in
            let rows = try await connection.query(
                """
                UPDATE merchants SET template = \(template.map { ByteBuffer(bytes: $0) }),
                                     template_version = template_version + 1, updated_at = \(now.unixSeconds)
                WHERE slug = \(slug)
                RETURNING \(unescaped: Self.merchantColumns)
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first else { return nil }
            try await self.merchantsChanged(connection)
            return try Self.merchant(row)
        }
        if merchant != nil { hub.publish(.merchantsChanged) }
        return merchant
    }

    public func merchantTemplate(merchantID: Int64) async throws -> (version: Int, data: Data)? {
        let rows = try await client.query(
            "SELECT template, template_version FROM merchants WHERE id = \(merchantID) AND template IS NOT NULL",
            logger: logger
        )
        guard let row = rows.first else { return nil }
        let columns = Columns(row)
        let data: ByteBuffer = try columns["template"]
        return (Int(try columns["template_version"] as Int32), Data(buffer: data))
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
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO \(unescaped: table.name) (id, \(unescaped: table.owner), hash, created_at)
                VALUES (\(id), \(owner), \(ByteBuffer(bytes: hash)), \(createdAt.unixSeconds))
                """,
                logger: self.logger
            )
            try await self.merchantsChanged(connection)
        }
        hub.publish(.merchantsChanged)
    }

    func keys(_ table: APIKeyRow.Table, owner: Int64?) async throws -> [APIKeyRow] {
        try await client.query(
            """
            SELECT id, \(unescaped: table.owner) AS owner, hash, created_at, last_used_at, revoked_at FROM \(unescaped: table.name)
            WHERE \(owner)::bigint IS NULL OR \(unescaped: table.owner) = \(owner) ORDER BY created_at, id
            """,
            logger: logger
        ).map { row in
            let columns = Columns(row)
            let hash: ByteBuffer = try columns["hash"]
            return APIKeyRow(
                id: try columns["id"],
                ownerID: try columns["owner"],
                hash: Data(buffer: hash),
                createdAt: Date(unixSeconds: try columns["created_at"]),
                lastUsedAt: (try columns["last_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                revokedAt: (try columns["revoked_at"] as Int64?).map(Date.init(unixSeconds:))
            )
        }
    }

    func revokeKey(_ table: APIKeyRow.Table, owner: Int64, keyID: String, now: Date) async throws -> Bool {
        let revoked = try await transaction { connection -> Bool in
            let rows = try await connection.query(
                """
                UPDATE \(unescaped: table.name) SET revoked_at = \(now.unixSeconds)
                WHERE id = \(keyID) AND \(unescaped: table.owner) = \(owner) AND revoked_at IS NULL
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

    public func recordKeyUse(_ uses: [String: Date]) async throws {
        guard !uses.isEmpty else { return }
        for table in [APIKeyRow.Table.merchant, .partner] {
            try await client.query(
                """
                UPDATE \(unescaped: table.name) k SET last_used_at = GREATEST(COALESCE(k.last_used_at, 0), u.at)
                FROM unnest(\(Array(uses.keys))::text[], \(uses.values.map(\.unixSeconds))::bigint[]) AS u(id, at)
                WHERE k.id = u.id
                """,
                logger: logger
            )
        }
    }

    public func merchantsVersion() async throws -> Int64 {
        try await first(Int64.self, "SELECT value FROM counters WHERE name = 'merchants'") ?? 0
    }

    /// Moves the merchants' version on and tells every instance, when the transaction on `connection` commits.
    func merchantsChanged(_ connection: PostgresConnection) async throws {
        try await connection.query("UPDATE counters SET value = value + 1 WHERE name = 'merchants'", logger: logger)
        try await notify(connection, .merchantsChanged)
    }

    static let merchantColumns = """
        id, slug, display_name, status, order_types, requests_per_second, max_orders, max_asset_bytes, orders_stored,
        asset_bytes, history_bytes, template_version, stalled_parcel_hours, created_at, updated_at
        """

    static func merchant(_ row: PostgresRow) throws -> Merchant {
        let columns = Columns(row)
        return Merchant(
            id: try columns["id"],
            slug: try columns["slug"],
            displayName: try columns["display_name"],
            status: MerchantStatus(rawValue: try columns["status"]) ?? .suspended,
            orderTypes: Merchant.orderTypes(text: try columns["order_types"]),
            limits: MerchantLimits(
                requestsPerSecond: (try columns["requests_per_second"] as Int64?).map(Int.init),
                maxOrders: (try columns["max_orders"] as Int64?).map(Int.init),
                maxAssetBytes: (try columns["max_asset_bytes"] as Int64?).map(Int.init)
            ),
            usage: MerchantUsage(
                orders: Int(try columns["orders_stored"] as Int64),
                assetBytes: Int(try columns["asset_bytes"] as Int64),
                historyBytes: Int(try columns["history_bytes"] as Int64)
            ),
            templateVersion: Int(try columns["template_version"] as Int32),
            stalledParcelAfterHours: (try columns["stalled_parcel_hours"] as Int32?).map(Int.init),
            createdAt: Date(unixSeconds: try columns["created_at"]),
            updatedAt: Date(unixSeconds: try columns["updated_at"])
        )
    }
}
