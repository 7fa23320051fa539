import Foundation
import PostgresNIO
import WalletOrdersStore

/// Counts for admins, and loading orders in bulk.
extension PostgresStore {
    /// Nil: the database's disk is the PostgreSQL server's, which watches it itself (and refuses writes when full).
    public func diskSpace() -> DiskSpace? { nil }

    public func stats() async throws -> StoreStats {
        let now = clock.now()
        func grouped<Key: RawRepresentable<String> & Hashable>(_ query: PostgresQuery) async throws -> [Key: Int] {
            var counts: [Key: Int] = [:]
            for row in try await client.query(query, logger: logger) {
                let columns = Columns(row)
                if let key = Key(rawValue: try columns["key"]) { counts[key] = Int(try columns["count"] as Int64) }
            }
            return counts
        }
        let hourAgo = now.unixSeconds - 3_600
        let dayAgo = now.unixSeconds - 86_400
        return StoreStats(
            orders: try await count("SELECT count(*) FROM orders"),
            ordersByStatus: try await grouped("SELECT status AS key, count(*) AS count FROM orders GROUP BY status"),
            registrations: try await count("SELECT count(*) FROM registrations"),
            devices: try await count("SELECT count(DISTINCT device_identifier) FROM registrations"),
            deviceLogs: try await count("SELECT count(*) FROM device_logs"),
            pushes: try await pushCounts(),
            pushesLastHour: try await grouped(
                """
                SELECT status AS key, count(*) AS count FROM push_outbox
                WHERE status IN ('delivered', 'failed') AND updated_at >= \(hourAgo) GROUP BY status
                """
            ),
            pushesLastDay: try await grouped(
                """
                SELECT status AS key, count(*) AS count FROM push_outbox
                WHERE status IN ('delivered', 'failed') AND updated_at >= \(dayAgo) GROUP BY status
                """
            )
        )
    }

    public func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws {
        let now = clock.now()
        // Arrays bound as parameters and unnested: a whole batch in a few statements, with no SQL built from data.
        try await transaction { connection in
            if !orders.isEmpty {
                let types = orders.map(\.orderTypeIdentifier)
                let ids = orders.map(\.orderIdentifier)
                let statuses = orders.map { $0.document["status"]?.stringValue ?? "open" }
                let updated = orders.map(\.updatedAt.unixSeconds)
                try await connection.query(
                    """
                    INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                        created_at, updated_at, change_tag, version, merchant_id, order_number)
                    SELECT t, i, k, d, s, c, u, pg_current_xact_id()::text::bigint, 1, m, NULLIF(n, '')
                    FROM unnest(\(types)::text[], \(ids)::text[], \(orders.map(\.authenticationToken))::text[],
                                \(orders.map { Self.text($0.document) })::text[], \(statuses)::text[],
                                \(orders.map(\.createdAt.unixSeconds))::bigint[], \(updated)::bigint[],
                                \(orders.map(\.merchantID))::bigint[],
                                \(orders.map { $0.document["orderNumber"]?.stringValue ?? "" })::text[])
                         AS o(t, i, k, d, s, c, u, m, n)
                    """,
                    logger: self.logger
                )
                let perMerchant = Dictionary(grouping: orders, by: \.merchantID).mapValues { Int64($0.count) }
                try await connection.query(
                    """
                    UPDATE merchants m SET orders_stored = orders_stored + c.n
                    FROM unnest(\(Array(perMerchant.keys))::bigint[], \(Array(perMerchant.values))::bigint[]) AS c(id, n)
                    WHERE m.id = c.id
                    """,
                    logger: self.logger
                )
                try await connection.query(
                    """
                    INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
                    SELECT t, i, 1, s, u FROM unnest(\(types)::text[], \(ids)::text[], \(statuses)::text[],
                                                     \(updated)::bigint[]) AS v(t, i, s, u)
                    """,
                    logger: self.logger
                )
                let parcels = orders.flatMap { order in order.tracking.map { (order, $0) } }
                if !parcels.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO order_tracking (order_type_identifier, order_identifier, fulfillment_identifier,
                                                    merchant_id, tracking_number, carrier, in_transit, heard_at)
                        SELECT t, i, f, m, n, NULLIF(c, ''), r, \(now.unixSeconds)
                        FROM unnest(\(parcels.map(\.0.orderTypeIdentifier))::text[], \(parcels.map(\.0.orderIdentifier))::text[],
                                    \(parcels.map(\.1.fulfillmentIdentifier))::text[], \(parcels.map(\.0.merchantID))::bigint[],
                                    \(parcels.map(\.1.trackingNumber))::text[], \(parcels.map { $0.1.carrier ?? "" })::text[],
                                    \(parcels.map { $0.1.inTransit ?? false })::boolean[])
                             AS p(t, i, f, m, n, c, r)
                        ON CONFLICT DO NOTHING
                        """,
                        logger: self.logger
                    )
                }
                let packaged = orders.filter { $0.package != nil }
                if !packaged.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO order_packages (order_type_identifier, order_identifier, version, data)
                        SELECT t, i, 1, d FROM unnest(\(packaged.map(\.orderTypeIdentifier))::text[],
                                                      \(packaged.map(\.orderIdentifier))::text[],
                                                      \(packaged.map { ByteBuffer(bytes: $0.package ?? Data()) })::bytea[]) AS p(t, i, d)
                        """,
                        logger: self.logger
                    )
                }
            }
            if !registrations.isEmpty {
                let seconds = registrations.map(\.createdAt.unixSeconds)
                try await connection.query(
                    """
                    INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                               created_at, updated_at)
                    SELECT d, t, i, p, c, c
                    FROM unnest(\(registrations.map(\.deviceIdentifier))::text[],
                                \(registrations.map(\.orderTypeIdentifier))::text[],
                                \(registrations.map(\.orderIdentifier))::text[],
                                \(registrations.map(\.pushToken))::text[], \(seconds)::bigint[]) AS r(d, t, i, p, c)
                    """,
                    logger: self.logger
                )
                try await connection.query(
                    """
                    UPDATE orders o SET first_registered_at = least(coalesce(o.first_registered_at, r.first), r.first)
                    FROM (SELECT t, i, min(c) AS first
                          FROM unnest(\(registrations.map(\.orderTypeIdentifier))::text[],
                                      \(registrations.map(\.orderIdentifier))::text[], \(seconds)::bigint[]) AS x(t, i, c)
                          GROUP BY t, i) r
                    WHERE o.order_type_identifier = r.t AND o.order_identifier = r.i
                    """,
                    logger: self.logger
                )
            }
        }
    }
}
