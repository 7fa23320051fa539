import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// What the operator's console reads beyond the listings: an order's links and webhook deliveries, and the
/// day-by-day activity its charts draw.
extension SQLiteStore {
    public func orderLinks(type: String, id: String) async throws -> [OrderLinkState] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, reusable, created_at, expires_at, first_used_at, downloads, revoked_at, merchant_id
                    FROM order_links WHERE order_type_identifier = ? AND order_identifier = ?
                    ORDER BY created_at DESC, id
                    """,
                arguments: [type, id]
            ).map { row in
                OrderLinkState(
                    id: row["id"],
                    reusable: row["reusable"],
                    createdAt: Date(unixSeconds: row["created_at"]),
                    expiresAt: Date(unixSeconds: row["expires_at"]),
                    firstUsedAt: (row["first_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                    downloads: row["downloads"],
                    revokedAt: (row["revoked_at"] as Int64?).map(Date.init(unixSeconds:)),
                    merchantID: row["merchant_id"]
                )
            }
        }
    }

    public func webhookDeliveries(type: String, id: String, limit: Int) async throws -> [WebhookDelivery] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM webhook_deliveries WHERE order_type_identifier = ? AND order_identifier = ?
                    ORDER BY id DESC LIMIT ?
                    """,
                arguments: [type, id, limit]
            ).map(Self.delivery)
        }
    }

    public func activity(merchant: Int64?, since: Date) async throws -> StoreActivity {
        try await pool.read { db in
            let start = since.unixSeconds
            // Every statement reads from an index on its time column; `?2 IS NULL OR …` keeps one statement for all
            // merchants and one.
            func days(_ sql: String) throws -> [Int64: Int] {
                var counts: [Int64: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql, arguments: [start, merchant]) {
                    counts[row["day"]] = row["count"]
                }
                return counts
            }
            var activity = StoreActivity()
            activity.ordersCreated = try days(
                """
                SELECT created_at / 86400 AS day, COUNT(*) AS count FROM orders
                WHERE created_at >= ?1 AND (?2 IS NULL OR merchant_id = ?2) GROUP BY day
                """
            )
            activity.ordersUpdated = try days(
                """
                SELECT v.updated_at / 86400 AS day, COUNT(*) AS count FROM order_versions v
                JOIN orders o ON o.order_type_identifier = v.order_type_identifier
                             AND o.order_identifier = v.order_identifier
                WHERE v.updated_at >= ?1 AND v.version > 1 AND (?2 IS NULL OR o.merchant_id = ?2) GROUP BY day
                """
            )
            activity.ordersAdded = try days(
                """
                SELECT first_registered_at / 86400 AS day, COUNT(*) AS count FROM orders
                WHERE first_registered_at >= ?1 AND (?2 IS NULL OR merchant_id = ?2) GROUP BY day
                """
            )
            activity.addedOfCreated =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM orders
                        WHERE created_at >= ?1 AND first_registered_at IS NOT NULL AND (?2 IS NULL OR merchant_id = ?2)
                        """,
                    arguments: [start, merchant]
                ) ?? 0
            activity.registeredDevices =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(DISTINCT r.device_identifier) FROM registrations r
                        WHERE ?1 IS NULL OR EXISTS (SELECT 1 FROM orders o WHERE o.merchant_id = ?1
                              AND o.order_type_identifier = r.order_type_identifier
                              AND o.order_identifier = r.order_identifier)
                        """,
                    arguments: [merchant]
                ) ?? 0
            // Every push queued since the start was last touched since then, so the index on updated_at finds them.
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT status, created_at / 86400 AS queued, updated_at / 86400 AS touched,
                           updated_at - created_at AS seconds, created_at >= ?1 AS queuedSince, COUNT(*) AS count
                    FROM push_outbox WHERE updated_at >= ?1 AND (?2 IS NULL OR merchant_id = ?2)
                    GROUP BY status, queued, touched, seconds, queuedSince
                    """,
                arguments: [start, merchant]
            ) {
                let count: Int = row["count"]
                let status = PushStatus(rawValue: row["status"]) ?? .failed
                if row["queuedSince"] { activity.pushesQueued[row["queued"], default: 0] += count }
                switch status {
                case .pending, .sending:
                    activity.outboxDepth += count
                case .delivered, .failed:
                    activity.pushesFinished[row["touched"], default: [:]][status, default: 0] += count
                    if status == .delivered {
                        activity.deliverySeconds[row["touched"], default: [:]][max(0, row["seconds"]), default: 0] += count
                    }
                }
            }
            // Pushes waiting since before the start (a long APNs outage) are in the outbox too.
            activity.outboxDepth +=
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM push_outbox WHERE status IN ('pending', 'sending') AND updated_at < ?1
                          AND (?2 IS NULL OR merchant_id = ?2)
                        """,
                    arguments: [start, merchant]
                ) ?? 0
            return activity
        }
    }
}
