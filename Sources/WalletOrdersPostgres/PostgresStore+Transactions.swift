import Foundation
import Logging
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// Pieces the transactions share: running one, reading rows as records, assets and packages.
extension PostgresStore {
    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws,
    /// with its own error rethrown (PostgresNIO's `withTransaction` wraps it).
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: self.logger)
            let result: Result
            do {
                result = try await body(connection)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
            try await connection.query("COMMIT", logger: self.logger)
            return result
        }
    }

    /// The first column of the first row, or nil when there is no row.
    func first<Value: PostgresDecodable>(_ type: Value.Type, _ query: PostgresQuery) async throws -> Value? {
        // The one column of a one-column answer.
        try await client.query(query, logger: logger).first?.decode(Value.self)
    }

    /// A statement whose single row holds a count.
    func count(_ query: PostgresQuery) async throws -> Int {
        Int(try await first(Int64.self, query) ?? 0)
    }

    /// A statement on `connection` whose single row holds a count.
    func count(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> Int {
        Int(try await connection.query(query, logger: logger).collect().first?.decode(Int64.self) ?? 0)
    }

    /// Tells this instance's worker, and every other instance's, that webhook deliveries were queued by a statement
    /// that committed on its own.
    func announceWebhooks(_ queued: Int) async throws {
        guard queued > 0 else { return }
        hub.publish(.webhooksQueued)
        try await client.query("SELECT pg_notify(\(Self.channel), \(Self.payload(.webhooksQueued)))", logger: logger)
    }

    func strings(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [String] {
        try await connection.query(query, logger: logger).collect().map { try Columns($0)["name"] }
    }

    /// One pending push per device registered for the order; answers how many devices that is.
    func queuePushes(_ connection: PostgresConnection, type: String, id: String, now: Date) async throws -> Int {
        let merchant = "(SELECT merchant_id FROM orders WHERE order_type_identifier = $1 AND order_identifier = $2)"
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(type)
        bindings.append(id)
        bindings.append(now.unixSeconds)
        let sql = Self.pushFanOut(type: "$1", id: "$2", merchant: merchant, now: "$3")
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        let rows = try await connection.query(
            """
            SELECT count(*) AS devices FROM registrations
            WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            """,
            logger: logger
        ).collect()
        guard let row = rows.first else { return 0 }
        return Int(try Columns(row)["devices"] as Int64)
    }

    /// Runs `statement`, a transaction of its own, on a connection. With `files`, the order's files are replaced
    /// after it in one transaction of ours, and so are the parcels it follows when the write names them: all land,
    /// or none (a statement that throws undoes the files too).
    func run<Result: Sendable>(
        _ statement: @escaping @Sendable (PostgresConnection) async throws -> Result,
        replacingFilesOf order: OrderWrite,
        with files: [String: Data]?
    ) async throws -> Result {
        // A statement that may pass a merchant's limit runs in a transaction, so that passing it undoes the write.
        let mayPassStorage = order.limits.maxAssetBytes != nil && order.historyBytes > 0
        guard files != nil || order.limits.maxOrders != nil || order.tracking != nil || mayPassStorage else {
            return try await client.withConnection(statement)
        }
        return try await transaction { connection in
            let result = try await statement(connection)
            if let files {
                try await self.chargeFiles(connection, order, files: files)
                try await self.replaceAssets(connection, type: order.orderTypeIdentifier, id: order.orderIdentifier, assets: files)
            }
            try await self.replaceTracking(connection, order)
            return result
        }
    }

    /// Counts the change in the bytes of an order's files, before they are replaced by `files`, in its merchant's
    /// storage, and checks the merchant's limits (`MerchantLimits.passed`) for it and the version history the write
    /// added: throws `StoreError.quotaExceeded` when the write passes one.
    func chargeFiles(_ connection: PostgresConnection, _ order: OrderWrite, files: [String: Data]) async throws {
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let before =
            try await connection.query(
                """
                SELECT COALESCE(SUM(octet_length(data)), 0)::bigint FROM order_assets
                WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                """,
                logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        let added = MerchantUsage(
            assetBytes: files.values.reduce(0) { $0 + $1.count } - Int(before),
            historyBytes: order.historyBytes
        )
        guard added != MerchantUsage() else { return }
        let rows = try await connection.query(
            """
            UPDATE merchants SET asset_bytes = asset_bytes + \(Int64(added.assetBytes))
            WHERE id = \(order.merchantID)
            RETURNING orders_stored, asset_bytes, history_bytes
            """,
            logger: logger
        ).collect()
        guard let row = rows.first else { return }
        let columns = Columns(row)
        let usage = MerchantUsage(
            orders: Int(try columns["orders_stored"] as Int64),
            assetBytes: Int(try columns["asset_bytes"] as Int64),
            historyBytes: Int(try columns["history_bytes"] as Int64)
        )
        if let quota = order.limits.passed(by: usage, adding: added) { throw StoreError.quotaExceeded(quota) }
    }

    func replaceAssets(
        _ connection: PostgresConnection,
        type: String,
        id: String,
        assets: [String: Data]
    ) async throws {
        try await connection.query(
            """
            DELETE FROM order_assets WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            """,
            logger: logger
        )
        for (path, data) in assets {
            try await connection.query(
                """
                INSERT INTO order_assets (order_type_identifier, order_identifier, path, data)
                VALUES (\(type), \(id), \(path), \(data))
                """,
                logger: logger
            )
        }
    }

    func storePackage(
        _ connection: PostgresConnection,
        type: String,
        id: String,
        version: Int,
        data: Data
    ) async throws {
        try await connection.query(
            """
            INSERT INTO order_packages (order_type_identifier, order_identifier, version, data)
            VALUES (\(type), \(id), \(version), \(data))
            ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE
                SET version = excluded.version, data = excluded.data
            """,
            logger: logger
        )
    }

    static func text(_ document: OrderDocument) -> String {
        String(decoding: document.json.serialized(), as: UTF8.self)
    }

    static func status(_ text: String) -> Order.Status {
        Order.Status(rawValue: text) ?? .open
    }

    static func head(_ columns: Columns) throws -> OrderHead {
        OrderHead(
            authenticationToken: try columns["authentication_token"],
            updatedAt: Date(unixSeconds: try columns["updated_at"]),
            changeTag: try columns["change_tag"],
            version: try columns["version"]
        )
    }

    static func registration(_ row: PostgresRow) throws -> Registration {
        let columns = Columns(row)
        return Registration(
            deviceIdentifier: try columns["device_identifier"],
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            pushToken: try columns["push_token"],
            createdAt: Date(unixSeconds: try columns["created_at"]),
            updatedAt: Date(unixSeconds: try columns["updated_at"])
        )
    }
}
