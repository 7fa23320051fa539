import Foundation
import PostgresNIO
import WalletOrdersStore

/// Merchants' connected shops, and the webhooks taken from each.
extension PostgresStore {
    public func addShopConnection(_ connection: ShopConnection, maxPerMerchant: Int) async throws {
        // The count and the insert are one statement (connections made at the same moment may pass the cap by a few).
        let rows = try await client.query(
            """
            INSERT INTO shop_connections (id, merchant_id, kind, shop, secret, order_management_url, skip_apple_pay,
                                          created_at, updated_at)
            SELECT \(connection.id), \(connection.merchantID), \(connection.kind.rawValue), \(connection.shop),
                   \(connection.secret), \(connection.orderManagementURL), \(connection.skipApplePay),
                   \(connection.createdAt.unixSeconds), \(connection.updatedAt.unixSeconds)
            WHERE (SELECT count(*) FROM shop_connections WHERE merchant_id = \(connection.merchantID)) < \(Int64(maxPerMerchant))
            RETURNING id
            """,
            logger: logger
        )
        guard !rows.isEmpty else { throw StoreError.tooManyShops }
    }

    public func shopConnection(id: String) async throws -> ShopConnection? {
        try await client.query("SELECT * FROM shop_connections WHERE id = \(id)", logger: logger)
            .compactMap(Self.shop).first
    }

    public func shopConnections(merchantID: Int64?) async throws -> [ShopConnection] {
        try await client.query(
            """
            SELECT * FROM shop_connections WHERE \(merchantID)::bigint IS NULL OR merchant_id = \(merchantID)
            ORDER BY created_at, id
            """,
            logger: logger
        ).compactMap(Self.shop)
    }

    public func replaceShopConnection(_ connection: ShopConnection) async throws -> Bool {
        try await count(
            """
            WITH changed AS (
                UPDATE shop_connections
                SET shop = \(connection.shop), secret = \(connection.secret),
                    order_management_url = \(connection.orderManagementURL), skip_apple_pay = \(connection.skipApplePay),
                    updated_at = \(connection.updatedAt.unixSeconds)
                WHERE id = \(connection.id) AND merchant_id = \(connection.merchantID) RETURNING 1)
            SELECT count(*) FROM changed
            """
        ) == 1
    }

    public func deleteShopConnection(id: String, merchantID: Int64) async throws -> Bool {
        // Its webhooks go with it (ON DELETE CASCADE).
        try await count(
            """
            WITH gone AS (DELETE FROM shop_connections WHERE id = \(id) AND merchant_id = \(merchantID) RETURNING 1)
            SELECT count(*) FROM gone
            """
        ) == 1
    }

    public func takeShopWebhook(connectionID: String, webhookID: String) async throws -> Bool {
        try await count(
            """
            WITH taken AS (
                INSERT INTO shop_webhooks (connection_id, webhook_id, received_at)
                VALUES (\(connectionID), \(webhookID), \(clock.now().unixSeconds))
                ON CONFLICT (connection_id, webhook_id) DO NOTHING RETURNING 1)
            SELECT count(*) FROM taken
            """
        ) == 1
    }

    public func hasTakenShopWebhook(connectionID: String, webhookID: String) async throws -> Bool {
        try await count(
            "SELECT count(*) FROM shop_webhooks WHERE connection_id = \(connectionID) AND webhook_id = \(webhookID)"
        ) == 1
    }

    public func pruneShopWebhooks(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await count(
            "WITH gone AS (DELETE FROM shop_webhooks WHERE received_at < \(date.unixSeconds) RETURNING 1) SELECT count(*) FROM gone"
        )
    }

    /// A connection as stored; nil for a kind this build does not know (a newer instance's).
    static func shop(_ row: PostgresRow) throws -> ShopConnection? {
        let columns = Columns(row)
        guard let kind = ShopKind(rawValue: try columns["kind"]) else { return nil }
        return ShopConnection(
            id: try columns["id"],
            merchantID: try columns["merchant_id"],
            kind: kind,
            shop: try columns["shop"],
            secret: try columns["secret"],
            orderManagementURL: try columns["order_management_url"],
            skipApplePay: try columns["skip_apple_pay"],
            createdAt: Date(unixSeconds: try columns["created_at"]),
            updatedAt: Date(unixSeconds: try columns["updated_at"])
        )
    }
}
