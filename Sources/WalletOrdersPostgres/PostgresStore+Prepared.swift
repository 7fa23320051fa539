import PostgresNIO
import WalletOrdersStore

/// The reads devices make most, as statements each connection prepares once: PostgreSQL parses and plans them
/// once per connection instead of once per request, and no row description travels with each answer.
extension PostgresStore {
    /// Every row `statement` answers, read to the end so its connection goes back to the pool at once.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        try await client.execute(statement, logger: logger).reduce(into: []) { $0.append($1) }
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
