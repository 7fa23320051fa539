import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Orders: creating, reading, committing a new version over the one read, packages, listings and history.
extension SQLiteStore {
    public func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let document = Self.text(order.document)
        let stored = try await write { db -> (StoredOrder, Int) in
            let tag = try Self.nextChangeTag(db)
            try db.cachedStatement(
                sql: """
                    INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                        created_at, updated_at, change_tag, version, merchant_id, order_number)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                    ON CONFLICT (order_type_identifier, order_identifier) DO NOTHING
                    """
            ).execute(arguments: [
                type, id, order.authenticationToken, document, order.status.rawValue,
                order.createdAt.unixSeconds, order.updatedAt.unixSeconds, tag, order.merchantID, order.orderNumber,
            ])
            guard db.changesCount == 1 else { throw StoreError.orderExists }
            try Self.charge(db, order, MerchantUsage(orders: 1, assetBytes: order.assetBytes ?? 0))
            try Self.recordVersion(db, order, version: 1, now: clock.now())
            try Self.replaceAssets(db, type: type, id: id, assets: order.assets ?? [:])
            try Self.storePackage(db, type: type, id: id, version: 1, data: order.package)
            let webhooks = try Self.queueWebhooks(
                db,
                order.effects.webhooks,
                type: type,
                id: id,
                merchant: order.merchantID,
                now: clock.now()
            )
            return (StoredOrder(committed: order, changeTag: tag, version: 1), webhooks)
        }
        hub.publish(.orderChanged(type: type, id: id, version: 1))
        if stored.1 > 0 { hub.publish(.webhooksQueued) }
        return stored.0
    }

    public func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        let read = try await pool.read { db -> (OrderRow, [String: Data])? in
            guard let row = try Self.fetchOrderRow(db, type: type, id: id) else { return nil }
            return (row, try Self.fetchAssets(db, type: type, id: id))
        }
        // Parsed here, off the database's queue: on the caller's executor (the service's writes run on theirs).
        guard let (row, assets) = read else { return nil }
        return CurrentOrder(order: try row.order(type: type, id: id), assets: assets)
    }

    public func updateOrder(_ order: OrderWrite, expectedVersion: Int) async throws -> OrderUpdate {
        let now = clock.now()
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let version = expectedVersion + 1
        // Serialized before taking the writer: registrations and every other write wait while it is held.
        let document = Self.text(order.document)
        let update = try await write { db -> (OrderUpdate, Int) in
            let tag = try Self.nextChangeTag(db)
            // Cached statements on the write paths devices and merchants hit most: compiling SQL showed in profiles.
            try db.cachedStatement(
                sql: """
                    UPDATE orders SET document = ?, status = ?, updated_at = ?, change_tag = ?, version = ?, order_number = ?
                    WHERE order_type_identifier = ? AND order_identifier = ? AND version = ?
                    """
            ).execute(arguments: [
                document, order.status.rawValue, order.updatedAt.unixSeconds, tag,
                version, order.orderNumber, type, id, expectedVersion,
            ])
            guard db.changesCount == 1 else {
                let exists =
                    try Bool.fetchOne(
                        db,
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM orders WHERE order_type_identifier = ? AND order_identifier = ?)
                            """,
                        arguments: [type, id]
                    ) ?? false
                throw exists ? StoreError.versionConflict : StoreError.orderNotFound
            }
            try Self.recordVersion(db, order, version: version, now: now)
            var fileBytes = 0
            if let assets = order.assets {
                let before =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COALESCE(SUM(length(data)), 0) FROM order_assets
                            WHERE order_type_identifier = ? AND order_identifier = ?
                            """,
                        arguments: [type, id]
                    ) ?? 0
                fileBytes = (order.assetBytes ?? 0) - before
                try Self.replaceAssets(db, type: type, id: id, assets: assets)
            }
            try Self.charge(db, order, MerchantUsage(assetBytes: fileBytes, historyBytes: order.historyBytes))
            try Self.storePackage(db, type: type, id: id, version: version, data: order.package)
            let queued =
                order.effects.pushRegisteredDevices
                ? try Self.queuePushes(db, type: type, id: id, merchant: order.merchantID, now: now) : 0
            let webhooks = try Self.queueWebhooks(
                db,
                order.effects.webhooks,
                type: type,
                id: id,
                merchant: order.merchantID,
                now: now
            )
            let createdAt =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT created_at FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                            """
                    ),
                    arguments: [type, id]
                ) ?? order.createdAt.unixSeconds
            let stored = StoredOrder(committed: order, changeTag: tag, version: version, createdAt: createdAt)
            return (OrderUpdate(order: stored, pushesQueued: queued), webhooks)
        }
        hub.publish(.orderChanged(type: type, id: id, version: version))
        if update.0.pushesQueued > 0 { hub.publish(.pushesQueued) }
        if update.1 > 0 { hub.publish(.webhooksQueued) }
        return update.0
    }

    public func order(type: String, id: String) async throws -> StoredOrder? {
        try await pool.read { db in try Self.fetchOrderRow(db, type: type, id: id) }?.order(type: type, id: id)
    }

    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT authentication_token, updated_at, change_tag, version FROM orders
                    WHERE order_type_identifier = ? AND order_identifier = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [type, id]).map(Self.head)
        }
    }

    public func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        try await pool.read { db in
            // A cached statement: this is the request devices make most, and parsing SQL showed in profiles.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT o.authentication_token, o.updated_at, o.change_tag, o.version, p.data AS package
                    FROM orders o
                    LEFT JOIN order_packages p ON p.order_type_identifier = o.order_type_identifier
                                              AND p.order_identifier = o.order_identifier AND p.version = o.version
                    WHERE o.order_type_identifier = ? AND o.order_identifier = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [type, id]).map { row in
                FetchedOrder(head: Self.head(row), package: row["package"])
            }
        }
    }

    public func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        try await write { db in
            let current = try Int.fetchOne(
                db,
                sql: """
                    SELECT version FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                    """,
                arguments: [type, id]
            )
            guard current == version else { return false }
            try Self.storePackage(db, type: type, id: id, version: version, data: data)
            return true
        }
    }

    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        // Only the filters given are in the statement (fixed fragments, every value bound), so that the planner
        // picks the index each one has.
        var conditions: [String] = []
        var arguments: StatementArguments = []
        func add(_ condition: String, _ values: StatementArguments) {
            conditions.append(condition)
            arguments += values
        }
        // A search reads the few orders its text names (a union of indexed lookups, made first) and then those
        // orders by their key; a listing walks the table in the listing's order.
        var source = "orders o"
        if let text = filter.text {
            var named = [
                "SELECT order_type_identifier AS t, order_identifier AS i FROM orders WHERE order_identifier = ?",
                "SELECT order_type_identifier, order_identifier FROM orders WHERE order_number = ?",
                "SELECT order_type_identifier, order_identifier FROM order_tracking WHERE tracking_number = ?",
                "SELECT order_type_identifier, order_identifier FROM registrations WHERE device_identifier = ?",
            ]
            arguments += [text, text, text, text]
            if let prefix = filter.pushTokenPrefix, let last = prefix.unicodeScalars.last,
                let next = Unicode.Scalar(last.value + 1)
            {
                named.append(
                    "SELECT order_type_identifier, order_identifier FROM registrations WHERE push_token >= ? AND push_token < ?"
                )
                arguments += [prefix, String(prefix.unicodeScalars.dropLast()) + String(next)]
            }
            source = """
                (\(named.joined(separator: " UNION "))) AS named
                JOIN orders o ON o.order_type_identifier = named.t AND o.order_identifier = named.i
                """
        }
        if let type = filter.type { add("o.order_type_identifier = ?", [type]) }
        if let status = filter.status { add("o.status = ?", [status.rawValue]) }
        if let since = filter.updatedSince { add("o.updated_at >= ?", [since.unixSeconds]) }
        if let merchant = filter.merchant { add("o.merchant_id = ?", [merchant]) }
        if let number = filter.orderNumber { add("o.order_number = ?", [number]) }
        if let from = filter.createdFrom { add("o.created_at >= ?", [from.unixSeconds]) }
        if let before = filter.createdBefore { add("o.created_at < ?", [before.unixSeconds]) }
        // A creation-day filter lists by creation time (its index holds the rowid too), so that a page reads the
        // range from its end and stops; its cursor row's time is read where the page goes on.
        let byCreation = filter.createdFrom != nil || filter.createdBefore != nil
        let after = filter.oldestFirst ? ">" : "<"
        if let cursor = page.before {
            if byCreation {
                add(
                    """
                    o.created_at \(after)= (SELECT created_at FROM orders WHERE rowid = ?)
                      AND (o.created_at, o.rowid) \(after) ((SELECT created_at FROM orders WHERE rowid = ?), ?)
                    """,
                    [cursor, cursor, cursor]
                )
            } else {
                add("o.rowid \(after) ?", [cursor])
            }
        }
        arguments += [page.limit + 1]
        // The page first, then its devices counted: counted in the inner statement, they would be counted for every
        // order a sort reads, not for the page's alone.
        let direction = filter.oldestFirst ? "ASC" : "DESC"
        func order(_ time: String, _ key: String) -> String {
            byCreation ? "\(time) \(direction), \(key) \(direction)" : "\(key) \(direction)"
        }
        let sql = """
            SELECT p.*, (SELECT COUNT(*) FROM registrations r
                         WHERE r.order_type_identifier = p.order_type_identifier
                           AND r.order_identifier = p.order_identifier) AS registrations
            FROM (
                SELECT o.rowid AS cursor, o.order_type_identifier, o.order_identifier, o.status, o.created_at,
                       o.updated_at, o.version, o.order_number, o.merchant_id
                FROM \(source)
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY \(order("o.created_at", "o.rowid")) LIMIT ?
            ) p
            ORDER BY \(order("p.created_at", "p.cursor"))
            """
        let bound = arguments
        return try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: bound)
            return Page(
                rows: rows.map { row in
                    (
                        row["cursor"],
                        OrderSummary(
                            orderTypeIdentifier: row["order_type_identifier"],
                            orderIdentifier: row["order_identifier"],
                            status: Self.status(row["status"]),
                            createdAt: Date(unixSeconds: row["created_at"]),
                            updatedAt: Date(unixSeconds: row["updated_at"]),
                            version: row["version"],
                            registrations: row["registrations"],
                            orderNumber: row["order_number"],
                            merchantID: row["merchant_id"]
                        )
                    )
                },
                limit: page.limit
            )
        }
    }

    public func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion> {
        try await pool.read { db in
            Page(
                rows: try Row.fetchAll(
                    db,
                    sql: """
                        SELECT version, status, updated_at, made_by, changes FROM order_versions
                        WHERE order_type_identifier = ? AND order_identifier = ? AND (? IS NULL OR version < ?)
                        ORDER BY version DESC LIMIT ?
                        """,
                    arguments: [type, id, page.before, page.before, page.limit + 1]
                ).map { row in
                    (
                        row["version"],
                        OrderVersion(
                            version: row["version"],
                            status: Self.status(row["status"]),
                            updatedAt: Date(unixSeconds: row["updated_at"]),
                            author: row["made_by"],
                            record: row["changes"]
                        )
                    )
                },
                limit: page.limit
            )
        }
    }
}
