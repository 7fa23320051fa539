import Foundation
import GRDB
import WalletOrdersStore

/// Merchants' connected shops, and the webhooks taken from each.
extension SQLiteStore {
    public func addShopConnection(_ connection: ShopConnection, maxPerMerchant: Int) async throws {
        try await write { db in
            let count =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM shop_connections WHERE merchant_id = ?",
                    arguments: [connection.merchantID]
                ) ?? 0
            guard count < maxPerMerchant else { throw StoreError.tooManyShops }
            try db.execute(
                sql: """
                    INSERT INTO shop_connections (id, merchant_id, kind, shop, secret, order_management_url, skip_apple_pay,
                                                  created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    connection.id, connection.merchantID, connection.kind.rawValue, connection.shop, connection.secret,
                    connection.orderManagementURL, connection.skipApplePay, connection.createdAt.unixSeconds,
                    connection.updatedAt.unixSeconds,
                ]
            )
        }
    }

    public func shopConnection(id: String) async throws -> ShopConnection? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM shop_connections WHERE id = ?", arguments: [id]).flatMap(Self.shop)
        }
    }

    public func shopConnections(merchantID: Int64?) async throws -> [ShopConnection] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM shop_connections WHERE ?1 IS NULL OR merchant_id = ?1 ORDER BY created_at, id",
                arguments: [merchantID]
            ).compactMap(Self.shop)
        }
    }

    public func replaceShopConnection(_ connection: ShopConnection) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE shop_connections SET shop = ?, secret = ?, order_management_url = ?, skip_apple_pay = ?,
                                                updated_at = ?
                    WHERE id = ? AND merchant_id = ?
                    """,
                arguments: [
                    connection.shop, connection.secret, connection.orderManagementURL, connection.skipApplePay,
                    connection.updatedAt.unixSeconds, connection.id, connection.merchantID,
                ]
            )
            return db.changesCount == 1
        }
    }

    public func deleteShopConnection(id: String, merchantID: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM shop_webhooks WHERE connection_id IN (SELECT id FROM shop_connections WHERE id = ? AND merchant_id = ?)",
                arguments: [id, merchantID]
            )
            try db.execute(sql: "DELETE FROM shop_connections WHERE id = ? AND merchant_id = ?", arguments: [id, merchantID])
            return db.changesCount == 1
        }
    }

    public func takeShopWebhook(connectionID: String, webhookID: String) async throws -> Bool {
        let now = clock.now()
        return try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO shop_webhooks (connection_id, webhook_id, received_at) VALUES (?, ?, ?)
                    ON CONFLICT (connection_id, webhook_id) DO NOTHING
                    """,
                arguments: [connectionID, webhookID, now.unixSeconds]
            )
            return db.changesCount == 1
        }
    }

    public func hasTakenShopWebhook(connectionID: String, webhookID: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM shop_webhooks WHERE connection_id = ? AND webhook_id = ?",
                arguments: [connectionID, webhookID]
            ) ?? false
        }
    }

    public func pruneShopWebhooks(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            try db.execute(sql: "DELETE FROM shop_webhooks WHERE received_at < ?", arguments: [date.unixSeconds])
            return db.changesCount
        }
    }

    /// A connection as stored; nil for a kind this build does not know (a newer instance's).
    static func shop(_ row: Row) -> ShopConnection? {
        guard let kind = ShopKind(rawValue: row["kind"]) else { return nil }
        return ShopConnection(
            id: row["id"],
            merchantID: row["merchant_id"],
            kind: kind,
            shop: row["shop"],
            secret: row["secret"],
            orderManagementURL: row["order_management_url"],
            skipApplePay: row["skip_apple_pay"],
            createdAt: Date(unixSeconds: row["created_at"]),
            updatedAt: Date(unixSeconds: row["updated_at"])
        )
    }
}
