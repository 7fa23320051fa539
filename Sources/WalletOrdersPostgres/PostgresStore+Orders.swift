import Foundation
import Logging
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// Orders: creating, reading, committing a new version over the one read, packages.
extension PostgresStore {
    public func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let statement = CreateOrderStatement(order: order, document: Self.text(order.document))
        let create = { @Sendable (connection: PostgresConnection) async throws -> CreateOrderStatement.Row in
            guard let row = try await self.rows(statement, on: connection).first else { throw StoreError.orderExists }
            // Run in a transaction whenever the merchant has a maxOrders (see `run`): this undoes the insert.
            guard row.charged else { throw StoreError.quotaExceeded(.maxOrders) }
            return row
        }
        // A new order has no files to remove: without any to add, the statement runs alone.
        let files = order.assets?.isEmpty == false ? order.assets : nil
        let row = try await run(create, replacingFilesOf: order, with: files)
        hub.publish(.orderChanged(type: type, id: id, version: 1))
        if row.webhooks > 0 { hub.publish(.webhooksQueued) }
        return StoredOrder(committed: order, changeTag: row.changeTag, version: 1)
    }

    public func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        let rows = try await rows(CurrentOrderStatement(type: type, id: id))
        guard let row = rows.first else { return nil }
        var assets: [String: Data] = [:]
        for file in rows { if let path = file.path, let data = file.data { assets[path] = data } }
        return CurrentOrder(order: try row.order.order(type: type, id: id), assets: assets)
    }

    public func updateOrder(_ order: OrderWrite, expectedVersion: Int) async throws -> OrderUpdate {
        let now = clock.now()
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let version = expectedVersion + 1
        let statement = CommitVersionStatement(
            order: order,
            document: Self.text(order.document),
            expectedVersion: expectedVersion,
            now: now.unixSeconds
        )
        let commit = { @Sendable (connection: PostgresConnection) async throws -> CommitVersionStatement.Row in
            guard let row = try await self.rows(statement, on: connection).first else {
                let exists = try await connection.query(
                    """
                    SELECT 1 FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                    """,
                    logger: self.logger
                ).collect()
                throw exists.isEmpty ? StoreError.orderNotFound : StoreError.versionConflict
            }
            // With files, their charge decides for both (see `chargeFiles`).
            if order.assets == nil, let usage = row.usage,
                let quota = order.limits.passed(by: usage, adding: MerchantUsage(historyBytes: order.historyBytes))
            {
                throw StoreError.quotaExceeded(quota)
            }
            return row
        }
        let row = try await run(commit, replacingFilesOf: order, with: order.assets)
        let stored = StoredOrder(committed: order, changeTag: row.changeTag, version: version, createdAt: row.createdAt)
        hub.publish(.orderChanged(type: type, id: id, version: version))
        if row.devices > 0 { hub.publish(.pushesQueued) }
        if row.webhooks > 0 { hub.publish(.webhooksQueued) }
        return OrderUpdate(order: stored, pushesQueued: row.devices)
    }

    public func order(type: String, id: String) async throws -> StoredOrder? {
        // Without the order's files: nothing that shows an order needs their bytes.
        try await rows(OrderStatement(type: type, id: id)).first?.order(type: type, id: id)
    }

    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await rows(OrderHeadStatement(type: type, id: id)).first
    }

    public func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        try await rows(OrderForFetchStatement(type: type, id: id)).first
    }

    public func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        try await transaction { connection in
            // The order's row lock keeps a newer version from landing between the check and the write.
            let rows = try await connection.query(
                """
                SELECT version FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id) FOR SHARE
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first, try Columns(row)["version"] as Int == version else { return false }
            try await self.storePackage(connection, type: type, id: id, version: version, data: data)
            return true
        }
    }

    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        // Each filter not given is `NULL IS NULL`, which PostgreSQL folds away when it plans the statement with its
        // values, so every filter given is served by its index. A search reads the few orders its text names (a
        // union of indexed lookups) and joins them; a listing walks the table in the listing's order. The direction,
        // the order and the source are fixed words.
        let direction = filter.oldestFirst ? "ASC" : "DESC"
        let after = filter.oldestFirst ? ">" : "<"
        let tokenPattern = filter.pushTokenPrefix.map { $0 + "%" }
        // A creation-day filter lists by creation time (its index holds the order number too), so that a page reads
        // the range from its end and stops, and goes on from its cursor row's time and number.
        let byCreation = filter.createdFrom != nil || filter.createdBefore != nil
        func order(_ table: String) -> String {
            byCreation ? "\(table).created_at \(direction), \(table).seq \(direction)" : "\(table).seq \(direction)"
        }
        let source =
            filter.text == nil
            ? "orders o"
            : "named JOIN orders o ON o.order_type_identifier = named.t AND o.order_identifier = named.i"
        let text = filter.text ?? ""
        let rows = try await client.query(
            """
            WITH named (t, i) AS (
                SELECT order_type_identifier, order_identifier FROM orders WHERE order_identifier = \(text)
                UNION SELECT order_type_identifier, order_identifier FROM orders WHERE order_number = \(text)
                UNION SELECT order_type_identifier, order_identifier FROM order_tracking WHERE tracking_number = \(text)
                UNION SELECT order_type_identifier, order_identifier FROM registrations WHERE device_identifier = \(text)
                UNION SELECT order_type_identifier, order_identifier FROM registrations
                      WHERE \(tokenPattern)::text IS NOT NULL AND push_token LIKE \(tokenPattern)
            ), page AS (
                SELECT o.seq, o.order_type_identifier, o.order_identifier, o.status, o.created_at, o.updated_at,
                       o.version, o.order_number, o.merchant_id
                FROM \(unescaped: source)
                WHERE (\(filter.type)::text IS NULL OR o.order_type_identifier = \(filter.type))
                  AND (\(page.before)::bigint IS NULL OR \(byCreation) OR o.seq \(unescaped: after) \(page.before))
                  AND (\(page.before)::bigint IS NULL OR NOT \(byCreation)
                       OR (o.created_at, o.seq) \(unescaped: after) (SELECT created_at, seq FROM orders WHERE seq = \(page.before)))
                  AND (\(filter.status?.rawValue)::text IS NULL OR o.status = \(filter.status?.rawValue))
                  AND (\(filter.updatedSince?.unixSeconds)::bigint IS NULL OR o.updated_at >= \(filter.updatedSince?.unixSeconds))
                  AND (\(filter.merchant)::bigint IS NULL OR o.merchant_id = \(filter.merchant))
                  AND (\(filter.orderNumber)::text IS NULL OR o.order_number = \(filter.orderNumber))
                  AND (\(filter.createdFrom?.unixSeconds)::bigint IS NULL OR o.created_at >= \(filter.createdFrom?.unixSeconds))
                  AND (\(filter.createdBefore?.unixSeconds)::bigint IS NULL OR o.created_at < \(filter.createdBefore?.unixSeconds))
                ORDER BY \(unescaped: order("o")) LIMIT \(page.limit + 1)
            )
            -- The page first, then its devices counted, for the page's orders alone.
            SELECT p.*, (SELECT count(*) FROM registrations r
                         WHERE r.order_type_identifier = p.order_type_identifier
                           AND r.order_identifier = p.order_identifier)::bigint AS registrations
            FROM page p ORDER BY \(unescaped: order("p"))
            """,
            logger: logger
        )
        return Page(
            rows: try rows.map { row in
                let columns = Columns(row)
                return (
                    try columns["seq"],
                    OrderSummary(
                        orderTypeIdentifier: try columns["order_type_identifier"],
                        orderIdentifier: try columns["order_identifier"],
                        status: Self.status(try columns["status"]),
                        createdAt: Date(unixSeconds: try columns["created_at"]),
                        updatedAt: Date(unixSeconds: try columns["updated_at"]),
                        version: try columns["version"],
                        registrations: Int(try columns["registrations"] as Int64),
                        orderNumber: try columns["order_number"],
                        merchantID: try columns["merchant_id"]
                    )
                )
            },
            limit: page.limit
        )
    }

    public func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion> {
        let rows = try await client.query(
            """
            SELECT version, status, updated_at, made_by, changes FROM order_versions
            WHERE order_type_identifier = \(type) AND order_identifier = \(id)
              AND (\(page.before)::bigint IS NULL OR version < \(page.before))
            ORDER BY version DESC LIMIT \(page.limit + 1)
            """,
            logger: logger
        )
        return Page(
            rows: try rows.map { row -> (Int64, OrderVersion) in
                let columns = Columns(row)
                let version: Int = try columns["version"]
                return (
                    Int64(version),
                    OrderVersion(
                        version: version,
                        status: Self.status(try columns["status"]),
                        updatedAt: Date(unixSeconds: try columns["updated_at"]),
                        author: try columns["made_by"],
                        record: try columns["changes"]
                    )
                )
            },
            limit: page.limit
        )
    }
}
