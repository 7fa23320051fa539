import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Pieces the transactions share: change tags, queued pushes, history rows, assets, packages, and rows read as records.
extension SQLiteStore {
    static func nextChangeTag(_ db: Database) throws -> Int64 {
        guard
            let tag = try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        UPDATE counters SET value = value + 1 WHERE name = 'order_change' RETURNING value
                        """
                )
            )
        else { throw StoreError.unexpected("the order_change counter is missing") }
        return tag
    }

    /// One pending push per device registered for the order; answers how many devices that is.
    static func queuePushes(_ db: Database, type: String, id: String, merchant: Int64, now: Date) throws -> Int {
        // A pending push for the same order and token already covers this change: Wallet fetches the newest version.
        try db.cachedStatement(
            sql: """
                INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token, status,
                                         attempts, next_attempt_at, created_at, updated_at, merchant_id)
                SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', 0, ?3, ?3, ?3, ?4
                FROM registrations WHERE order_type_identifier = ?1 AND order_identifier = ?2
                ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending' DO NOTHING
                """
        ).execute(arguments: [type, id, now.unixSeconds, merchant])
        return try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
                    """
            ),
            arguments: [type, id]
        ) ?? 0
    }

    static func recordVersion(_ db: Database, _ order: OrderWrite, version: Int, now: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at,
                                                       made_by, changes)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            order.orderTypeIdentifier, order.orderIdentifier, version, order.status.rawValue,
            order.updatedAt.unixSeconds, order.author.text, order.changeRecord,
        ])
        try replaceTracking(db, order, now: now)
    }

    /// Counts what an order write `added` (orders, bytes of files, fewer when negative, and of version history)
    /// against its merchant's limits, as `MerchantLimits.passed` decides: throws `StoreError.quotaExceeded`, and so
    /// rolls the write back, when the write passes one.
    static func charge(_ db: Database, _ order: OrderWrite, _ added: MerchantUsage) throws {
        guard added != MerchantUsage() else { return }
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    UPDATE merchants SET orders_stored = orders_stored + ?, asset_bytes = asset_bytes + ?,
                                         history_bytes = history_bytes + ?
                    WHERE id = ? RETURNING orders_stored, asset_bytes, history_bytes
                    """
            ),
            arguments: [added.orders, added.assetBytes, added.historyBytes, order.merchantID]
        )
        guard let row else { return }
        let usage = MerchantUsage(orders: row[0], assetBytes: row[1], historyBytes: row[2])
        if let quota = order.limits.passed(by: usage, adding: added) { throw StoreError.quotaExceeded(quota) }
    }

    /// An order's row as stored, its document not parsed yet.
    struct OrderRow: Sendable {
        let authenticationToken: String
        let document: String
        let status: String
        let createdAt: Int64
        let updatedAt: Int64
        let changeTag: Int64
        let version: Int
        let merchantID: Int64

        func order(type: String, id: String) throws -> StoredOrder {
            StoredOrder(
                orderTypeIdentifier: type,
                orderIdentifier: id,
                authenticationToken: authenticationToken,
                document: try OrderDocument(data: Data(document.utf8)),
                status: SQLiteStore.status(status),
                createdAt: Date(unixSeconds: createdAt),
                updatedAt: Date(unixSeconds: updatedAt),
                changeTag: changeTag,
                version: version,
                merchantID: merchantID
            )
        }
    }

    static func fetchOrderRow(_ db: Database, type: String, id: String) throws -> OrderRow? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT authentication_token, document, status, created_at, updated_at, change_tag, version, merchant_id
                FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                """
        )
        return try Row.fetchOne(statement, arguments: [type, id]).map { row in
            OrderRow(
                authenticationToken: row["authentication_token"],
                document: row["document"],
                status: row["status"],
                createdAt: row["created_at"],
                updatedAt: row["updated_at"],
                changeTag: row["change_tag"],
                version: row["version"],
                merchantID: row["merchant_id"]
            )
        }
    }

    static func fetchAssets(_ db: Database, type: String, id: String) throws -> [String: Data] {
        var assets: [String: Data] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT path, data FROM order_assets WHERE order_type_identifier = ? AND order_identifier = ?
                    """
            ),
            arguments: [type, id]
        ) {
            assets[row["path"]] = row["data"]
        }
        return assets
    }

    static func replaceAssets(_ db: Database, type: String, id: String, assets: [String: Data]) throws {
        try db.execute(
            sql: "DELETE FROM order_assets WHERE order_type_identifier = ? AND order_identifier = ?",
            arguments: [type, id]
        )
        for (path, data) in assets {
            try db.execute(
                sql: """
                    INSERT INTO order_assets (order_type_identifier, order_identifier, path, data) VALUES (?, ?, ?, ?)
                    """,
                arguments: [type, id, path, data]
            )
        }
    }

    static func storePackage(_ db: Database, type: String, id: String, version: Int, data: Data) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO order_packages (order_type_identifier, order_identifier, version, data) VALUES (?, ?, ?, ?)
                ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE SET version = excluded.version,
                                                                                   data = excluded.data
                """
        ).execute(arguments: [type, id, version, data])
    }

    static func text(_ document: OrderDocument) -> String {
        String(decoding: document.json.serialized(), as: UTF8.self)
    }

    static func status(_ text: String) -> Order.Status {
        Order.Status(rawValue: text) ?? .open
    }

    static func head(_ row: Row) -> OrderHead {
        OrderHead(
            authenticationToken: row["authentication_token"],
            updatedAt: Date(unixSeconds: row["updated_at"]),
            changeTag: row["change_tag"],
            version: row["version"]
        )
    }

    static func registration(_ row: Row) -> Registration {
        Registration(
            deviceIdentifier: row["device_identifier"],
            orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"],
            pushToken: row["push_token"],
            createdAt: Date(unixSeconds: row["created_at"]),
            updatedAt: Date(unixSeconds: row["updated_at"])
        )
    }
}
