import Foundation
import GRDB
import WalletOrdersStore

/// Counts for admins, and loading orders in bulk.
extension SQLiteStore {
    public func stats() async throws -> StoreStats {
        let now = clock.now()
        return try await pool.read { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            func grouped<Key: RawRepresentable<String> & Hashable>(
                _ sql: String,
                _ arguments: StatementArguments = []
            ) throws -> [Key: Int] {
                var counts: [Key: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                    if let key = Key(rawValue: row["key"]) { counts[key] = row["count"] }
                }
                return counts
            }
            let finished = """
                SELECT status AS key, COUNT(*) AS count FROM push_outbox
                WHERE status IN ('delivered', 'failed') AND updated_at >= ? GROUP BY status
                """
            return StoreStats(
                orders: try count("SELECT COUNT(*) FROM orders"),
                ordersByStatus: try grouped("SELECT status AS key, COUNT(*) AS count FROM orders GROUP BY status"),
                registrations: try count("SELECT COUNT(*) FROM registrations"),
                devices: try count("SELECT COUNT(DISTINCT device_identifier) FROM registrations"),
                deviceLogs: try count("SELECT COUNT(*) FROM device_logs"),
                pushes: try Self.pushCounts(db),
                pushesLastHour: try grouped(finished, [now.unixSeconds - 3_600]),
                pushesLastDay: try grouped(finished, [now.unixSeconds - 86_400])
            )
        }
    }

    public func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws {
        let now = clock.now()
        try await write { db in
            if !orders.isEmpty {
                guard
                    let last = try Int64.fetchOne(
                        db,
                        sql: """
                            UPDATE counters SET value = value + ? WHERE name = 'order_change' RETURNING value
                            """,
                        arguments: [orders.count]
                    )
                else { throw StoreError.unexpected("the order_change counter is missing") }
                var tag = last - Int64(orders.count)
                let insertOrder = try db.makeStatement(
                    sql: """
                        INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                            created_at, updated_at, change_tag, version, merchant_id, order_number)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                        """
                )
                let insertVersion = try db.makeStatement(
                    sql: """
                        INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
                        VALUES (?, ?, 1, ?, ?)
                        """
                )
                let insertPackage = try db.makeStatement(
                    sql: """
                        INSERT INTO order_packages (order_type_identifier, order_identifier, version, data) VALUES (?, ?, 1, ?)
                        """
                )
                let insertParcel = try db.makeStatement(
                    sql: """
                        INSERT OR IGNORE INTO order_tracking (order_type_identifier, order_identifier, fulfillment_identifier,
                                                              merchant_id, tracking_number, carrier, in_transit, heard_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """
                )
                for (merchant, count) in Dictionary(grouping: orders, by: \.merchantID).mapValues(\.count) {
                    try db.execute(
                        sql: "UPDATE merchants SET orders_stored = orders_stored + ? WHERE id = ?",
                        arguments: [count, merchant]
                    )
                }
                for order in orders {
                    tag += 1
                    let status = order.document["status"]?.stringValue ?? "open"
                    try insertOrder.execute(arguments: [
                        order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken,
                        Self.text(order.document), status, order.createdAt.unixSeconds, order.updatedAt.unixSeconds, tag,
                        order.merchantID, order.document["orderNumber"]?.stringValue,
                    ])
                    try insertVersion.execute(arguments: [
                        order.orderTypeIdentifier, order.orderIdentifier, status, order.updatedAt.unixSeconds,
                    ])
                    if let package = order.package {
                        try insertPackage.execute(arguments: [order.orderTypeIdentifier, order.orderIdentifier, package])
                    }
                    for parcel in order.tracking {
                        try insertParcel.execute(arguments: [
                            order.orderTypeIdentifier, order.orderIdentifier, parcel.fulfillmentIdentifier, order.merchantID,
                            parcel.trackingNumber, parcel.carrier, parcel.inTransit ?? false, now.unixSeconds,
                        ])
                    }
                }
            }
            let insertRegistration = try db.makeStatement(
                sql: """
                    INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                               created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            )
            let firstRegistration = try db.makeStatement(
                sql: """
                    UPDATE orders SET first_registered_at = min(coalesce(first_registered_at, ?1), ?1)
                    WHERE order_type_identifier = ?2 AND order_identifier = ?3
                    """
            )
            for registration in registrations {
                let seconds = registration.createdAt.unixSeconds
                try insertRegistration.execute(arguments: [
                    registration.deviceIdentifier, registration.orderTypeIdentifier, registration.orderIdentifier,
                    registration.pushToken, seconds, seconds,
                ])
                try firstRegistration.execute(arguments: [
                    seconds, registration.orderTypeIdentifier, registration.orderIdentifier,
                ])
            }
        }
    }
}
