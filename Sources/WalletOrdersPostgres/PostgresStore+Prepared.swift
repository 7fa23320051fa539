import Foundation
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// The reads devices make most and a merchant write's statements, as statements each connection prepares once:
/// PostgreSQL parses and plans them once per connection instead of once per request, and no row description
/// travels with each answer.
extension PostgresStore {
    /// Every row `statement` answers, read to the end so its connection goes back to the pool at once.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await client.execute(statement, logger: logger)
    }

    /// Every row `statement` answers on `connection`, read to the end.
    func rows<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        on connection: PostgresConnection
    )
        async throws -> [Statement.Row]
    {
        try await connection.execute(statement, logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// "Which orders changed since": the device's orders with their tags, and the snapshot's xmin (see
    /// `changedOrders`).
    struct ChangedOrdersStatement: TwoTextParameters {
        static let name = "wallet_orders_changed_orders"
        static let sql = """
            SELECT o.order_identifier, o.change_tag, pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon
            FROM registrations r
            JOIN orders o ON o.order_type_identifier = r.order_type_identifier
                         AND o.order_identifier = r.order_identifier
            WHERE r.device_identifier = $1 AND r.order_type_identifier = $2
            """
        typealias Row = (id: String, tag: Int64, horizon: Int64)
        let device: String
        let type: String
        var parameters: (String, String) { (device, type) }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let columns = Columns(row)
            return (try columns["order_identifier"], try columns["change_tag"], try columns["horizon"])
        }
    }

    /// The head of an order: what a registration checks the token against.
    struct OrderHeadStatement: TwoTextParameters {
        static let name = "wallet_orders_order_head"
        static let sql = """
            SELECT authentication_token, updated_at, change_tag, version FROM orders
            WHERE order_type_identifier = $1 AND order_identifier = $2
            """
        typealias Row = OrderHead
        let type: String
        let id: String
        var parameters: (String, String) { (type, id) }

        func decodeRow(_ row: PostgresRow) throws -> OrderHead {
            try PostgresStore.head(Columns(row))
        }
    }

    /// The head of an order with the package of its current version, when one is stored: the order fetch.
    struct OrderForFetchStatement: TwoTextParameters {
        static let name = "wallet_orders_order_for_fetch"
        static let sql = """
            SELECT o.authentication_token, o.updated_at, o.change_tag, o.version, p.data AS package
            FROM orders o
            LEFT JOIN order_packages p ON p.order_type_identifier = o.order_type_identifier
                                      AND p.order_identifier = o.order_identifier AND p.version = o.version
            WHERE o.order_type_identifier = $1 AND o.order_identifier = $2
            """
        typealias Row = FetchedOrder
        let type: String
        let id: String
        var parameters: (String, String) { (type, id) }

        func decodeRow(_ row: PostgresRow) throws -> FetchedOrder {
            let columns = Columns(row)
            return FetchedOrder(head: try PostgresStore.head(columns), package: try columns["package"])
        }
    }

    /// An order's row as stored, its document not parsed yet.
    struct OrderRow {
        /// The columns it is read from, in a statement that names the orders table `o`.
        static let columns =
            "o.authentication_token, o.document, o.status, o.created_at, o.updated_at, o.change_tag, "
            + "o.version, o.merchant_id"
        let head: OrderHead
        let document: String
        let status: String
        let createdAt: Int64
        let merchantID: Int64

        init(_ columns: Columns) throws {
            head = try PostgresStore.head(columns)
            document = try columns["document"]
            status = try columns["status"]
            createdAt = try columns["created_at"]
            merchantID = try columns["merchant_id"]
        }

        func order(type: String, id: String) throws -> StoredOrder {
            StoredOrder(
                orderTypeIdentifier: type,
                orderIdentifier: id,
                authenticationToken: head.authenticationToken,
                document: try OrderDocument(data: Data(document.utf8)),
                status: PostgresStore.status(status),
                createdAt: Date(unixSeconds: createdAt),
                updatedAt: head.updatedAt,
                changeTag: head.changeTag,
                version: head.version,
                merchantID: merchantID
            )
        }
    }

    /// An order, for the merchant API and the admin tools.
    struct OrderStatement: TwoTextParameters {
        static let name = "wallet_orders_order"
        static let sql = """
            SELECT \(OrderRow.columns) FROM orders o WHERE o.order_type_identifier = $1 AND o.order_identifier = $2
            """
        typealias Row = OrderRow
        let type: String
        let id: String
        var parameters: (String, String) { (type, id) }

        func decodeRow(_ row: PostgresRow) throws -> OrderRow {
            try OrderRow(Columns(row))
        }
    }

    /// An order as a merchant's write reads it: its row with each of its files, one row per file (one row, with no
    /// file, when it has none).
    struct CurrentOrderStatement: TwoTextParameters {
        static let name = "wallet_orders_current_order"
        static let sql = """
            SELECT \(OrderRow.columns), a.path, a.data
            FROM orders o
            LEFT JOIN order_assets a ON a.order_type_identifier = o.order_type_identifier
                                    AND a.order_identifier = o.order_identifier
            WHERE o.order_type_identifier = $1 AND o.order_identifier = $2
            """
        typealias Row = (order: OrderRow, path: String?, data: Data?)
        let type: String
        let id: String
        var parameters: (String, String) { (type, id) }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let columns = Columns(row)
            return (try OrderRow(columns), try columns["path"], try columns["data"])
        }
    }

    /// A merchant's new version in one statement, one round trip and its own transaction: the order's row moved
    /// on from the version the write read (compare-and-swap), its history row, its package, what it causes (one
    /// pending push per registered device, webhook notices: `OrderWrite.effects`, through the fan-outs every write
    /// shares), and the notifications every instance listens for. No row comes back, and nothing is written, when
    /// the order is not at that version.
    struct CommitVersionStatement: PostgresPreparedStatement {
        static let name = "wallet_orders_commit_version"
        // Data-modifying WITH clauses all run, to completion, whether or not the final SELECT reads them; the
        // inserts take their row from `updated`, so they write only when the swap did.
        static let notices = PostgresStore.noticeRows(
            merchant: "$14::bigint",
            type: "$5::text",
            id: "$6::text",
            arrays: ("$15", "$16", "$22"),
            tables: ["updated"]
        )
        static let sql = """
            WITH updated AS (
                UPDATE orders SET document = $1, status = $2, updated_at = $3,
                                  change_tag = pg_current_xact_id()::text::bigint, version = $4, order_number = $13
                WHERE order_type_identifier = $5 AND order_identifier = $6 AND version = $7
                RETURNING change_tag, created_at
            ), recorded AS (
                INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at, made_by,
                                            changes)
                SELECT $5, $6, $4, $2, $3, $18, $19 FROM updated
                ON CONFLICT (order_type_identifier, order_identifier, version) DO UPDATE
                    SET status = excluded.status, updated_at = excluded.updated_at, made_by = excluded.made_by,
                        changes = excluded.changes
            ), packaged AS (
                INSERT INTO order_packages (order_type_identifier, order_identifier, version, data)
                SELECT $5, $6, $4, $8 FROM updated
                ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE
                    SET version = excluded.version, data = excluded.data
            ), queued AS (
                \(PostgresStore.pushFanOut(type: "$5", id: "$6", merchant: "$14", now: "$9", tables: ["updated"], condition: "$21"))
            ), registered AS (
                SELECT CASE WHEN $21 THEN count(*) ELSE 0 END AS devices FROM registrations
                WHERE order_type_identifier = $5 AND order_identifier = $6
            ), hooked AS (
                \(PostgresStore.webhookFanOut(from: notices, now: "$9"))
            ), hooks AS (
                SELECT count(*) AS webhooks FROM hooked
            ), charged AS (
                -- The version's change record ($20 bytes) counted in its merchant's storage; the caller checks the
                -- merchant's limits against what this answers.
                UPDATE merchants SET history_bytes = history_bytes + $20::bigint
                WHERE id = $14 AND $20::bigint <> 0 AND EXISTS (SELECT 1 FROM updated)
                RETURNING orders_stored, asset_bytes, history_bytes
            )
            SELECT u.change_tag, u.created_at, r.devices, h.webhooks,
                   pg_notify($10, $11)::text AS changed,
                   CASE WHEN r.devices > 0 THEN pg_notify($10, $12)::text END AS pushes,
                   CASE WHEN h.webhooks > 0 THEN pg_notify($10, $17)::text END AS hooks,
                   c.orders_stored, c.asset_bytes, c.history_bytes
            FROM updated u CROSS JOIN registered r CROSS JOIN hooks h LEFT JOIN charged c ON true
            """
        typealias Row = (changeTag: Int64, createdAt: Int64, devices: Int, webhooks: Int, usage: MerchantUsage?)
        let order: OrderWrite
        let document: String
        let expectedVersion: Int
        let now: Int64

        func makeBindings() throws -> PostgresBindings {
            let type = order.orderTypeIdentifier
            let id = order.orderIdentifier
            let version = expectedVersion + 1
            let notices = order.effects.webhooks
            var bindings = PostgresBindings(capacity: 22)
            bindings.append(document)
            bindings.append(order.status.rawValue)
            bindings.append(order.updatedAt.unixSeconds)
            bindings.append(version)
            bindings.append(type)
            bindings.append(id)
            bindings.append(expectedVersion)
            try bindings.append(order.package)
            bindings.append(now)
            bindings.append(PostgresStore.channel)
            bindings.append(PostgresStore.payload(.orderChanged(type: type, id: id, version: version)))
            bindings.append(PostgresStore.payload(.pushesQueued))
            bindings.append(order.orderNumber)
            bindings.append(order.merchantID)
            bindings.append(notices.map(\.event.rawValue))
            bindings.append(notices.map(\.event.bit))
            bindings.append(PostgresStore.payload(.webhooksQueued))
            bindings.append(order.author.text)
            bindings.append(order.changeRecord)
            bindings.append(Int64(order.historyBytes))
            bindings.append(order.effects.pushRegisteredDevices)
            bindings.append(notices.map(\.detail))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let columns = Columns(row)
            let usage = try (columns["orders_stored"] as Int64?).map { orders in
                MerchantUsage(
                    orders: Int(orders),
                    assetBytes: Int(try columns["asset_bytes"] as Int64),
                    historyBytes: Int(try columns["history_bytes"] as Int64)
                )
            }
            return (
                try columns["change_tag"], try columns["created_at"], Int(try columns["devices"] as Int64),
                Int(try columns["webhooks"] as Int64), usage
            )
        }
    }

    /// A new order's first version: its row, history row and package, its webhook notices, and the notifications, in
    /// one round trip. No pushes: no device can have registered for an order that did not exist.
    struct CreateOrderStatement: PostgresPreparedStatement {
        static let name = "wallet_orders_create_order"
        // As in CommitVersionStatement, the inserts take their row from `created`: nothing is written when the
        // order exists already. The foreign keys are checked at the end of the statement, after the order's row.
        static let notices = PostgresStore.noticeRows(
            merchant: "$11::bigint",
            type: "$1::text",
            id: "$2::text",
            arrays: ("$15", "$16", "$17"),
            tables: ["created"]
        )
        static let sql = """
            WITH created AS (
                INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                    created_at, updated_at, change_tag, version, merchant_id, order_number)
                VALUES ($1, $2, $3, $4, $5, $6, $7, pg_current_xact_id()::text::bigint, 1, $11, $12)
                ON CONFLICT (order_type_identifier, order_identifier) DO NOTHING
                RETURNING change_tag
            ), recorded AS (
                INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at, made_by)
                SELECT $1, $2, 1, $5, $7, $14 FROM created
                ON CONFLICT (order_type_identifier, order_identifier, version) DO UPDATE
                    SET status = excluded.status, updated_at = excluded.updated_at, made_by = excluded.made_by
            ), packaged AS (
                INSERT INTO order_packages (order_type_identifier, order_identifier, version, data)
                SELECT $1, $2, 1, $8 FROM created
                ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE
                    SET version = excluded.version, data = excluded.data
            ), charged AS (
                -- One more order for the merchant, unless that passes its maxOrders ($13): then no row, and the
                -- caller rolls the whole write back.
                UPDATE merchants SET orders_stored = orders_stored + 1
                WHERE id = $11 AND EXISTS (SELECT 1 FROM created) AND ($13::bigint IS NULL OR orders_stored < $13)
                RETURNING id
            ), hooked AS (
                \(PostgresStore.webhookFanOut(from: notices, now: "$7"))
            ), hooks AS (
                SELECT count(*) AS webhooks FROM hooked
            )
            SELECT c.change_tag, pg_notify($9, $10)::text AS changed, (SELECT count(*) FROM charged) AS charged,
                   h.webhooks, CASE WHEN h.webhooks > 0 THEN pg_notify($9, $18)::text END AS hooks
            FROM created c, hooks h
            """
        typealias Row = (changeTag: Int64, charged: Bool, webhooks: Int)
        let order: OrderWrite
        let document: String

        func makeBindings() throws -> PostgresBindings {
            let type = order.orderTypeIdentifier
            let id = order.orderIdentifier
            var bindings = PostgresBindings(capacity: 18)
            bindings.append(type)
            bindings.append(id)
            bindings.append(order.authenticationToken)
            bindings.append(document)
            bindings.append(order.status.rawValue)
            bindings.append(order.createdAt.unixSeconds)
            bindings.append(order.updatedAt.unixSeconds)
            try bindings.append(order.package)
            bindings.append(PostgresStore.channel)
            bindings.append(PostgresStore.payload(.orderChanged(type: type, id: id, version: 1)))
            bindings.append(order.merchantID)
            bindings.append(order.orderNumber)
            bindings.append(order.limits.maxOrders.map(Int64.init))
            bindings.append(order.author.text)
            PostgresStore.bindNotices(order.effects.webhooks, to: &bindings)
            bindings.append(PostgresStore.payload(.webhooksQueued))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let columns = Columns(row)
            return (try columns["change_tag"], try columns["charged"] as Int64 > 0, Int(try columns["webhooks"] as Int64))
        }
    }
}

/// A prepared statement whose parameters are two texts, `$1` and `$2`.
protocol TwoTextParameters: PostgresPreparedStatement {
    var parameters: (String, String) { get }
}

extension TwoTextParameters {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(parameters.0)
        bindings.append(parameters.1)
        return bindings
    }
}
