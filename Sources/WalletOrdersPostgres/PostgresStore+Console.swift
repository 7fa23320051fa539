import Foundation
import Logging
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// What the operator's console reads beyond the listings: an order's links and webhook deliveries, and the
/// day-by-day activity its charts draw.
extension PostgresStore {
    public func orderLinks(type: String, id: String) async throws -> [OrderLinkState] {
        try await client.query(
            """
            SELECT id, reusable, created_at, expires_at, first_used_at, downloads, revoked_at, merchant_id
            FROM order_links WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            ORDER BY created_at DESC, id
            """,
            logger: logger
        ).map { row in
            let columns = Columns(row)
            return OrderLinkState(
                id: try columns["id"],
                reusable: try columns["reusable"],
                createdAt: Date(unixSeconds: try columns["created_at"]),
                expiresAt: Date(unixSeconds: try columns["expires_at"]),
                firstUsedAt: (try columns["first_used_at"] as Int64?).map(Date.init(unixSeconds:)),
                downloads: Int(try columns["downloads"] as Int64),
                revokedAt: (try columns["revoked_at"] as Int64?).map(Date.init(unixSeconds:)),
                merchantID: try columns["merchant_id"]
            )
        }
    }

    public func webhookDeliveries(type: String, id: String, limit: Int) async throws -> [WebhookDelivery] {
        try await client.query(
            """
            SELECT * FROM webhook_deliveries WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            ORDER BY id DESC LIMIT \(limit)
            """,
            logger: logger
        ).map(Self.delivery)
    }

    public func activity(merchant: Int64?, since: Date) async throws -> StoreActivity {
        let start = since.unixSeconds
        // Every statement reads from an index on its time column; a merchant not given folds away.
        func days(_ query: PostgresQuery) async throws -> [Int64: Int] {
            var counts: [Int64: Int] = [:]
            for row in try await client.query(query, logger: logger) {
                let columns = Columns(row)
                counts[try columns["day"]] = Int(try columns["count"] as Int64)
            }
            return counts
        }
        var activity = StoreActivity()
        activity.ordersCreated = try await days(
            """
            SELECT created_at / 86400 AS day, count(*) AS count FROM orders
            WHERE created_at >= \(start) AND (\(merchant)::bigint IS NULL OR merchant_id = \(merchant)) GROUP BY day
            """
        )
        activity.ordersUpdated = try await days(
            """
            SELECT v.updated_at / 86400 AS day, count(*) AS count FROM order_versions v
            JOIN orders o ON o.order_type_identifier = v.order_type_identifier AND o.order_identifier = v.order_identifier
            WHERE v.updated_at >= \(start) AND v.version > 1
              AND (\(merchant)::bigint IS NULL OR o.merchant_id = \(merchant))
            GROUP BY day
            """
        )
        activity.ordersAdded = try await days(
            """
            SELECT first_registered_at / 86400 AS day, count(*) AS count FROM orders
            WHERE first_registered_at >= \(start) AND (\(merchant)::bigint IS NULL OR merchant_id = \(merchant))
            GROUP BY day
            """
        )
        activity.addedOfCreated = try await count(
            """
            SELECT count(*) FROM orders
            WHERE created_at >= \(start) AND first_registered_at IS NOT NULL
              AND (\(merchant)::bigint IS NULL OR merchant_id = \(merchant))
            """
        )
        activity.registeredDevices = try await count(
            """
            SELECT count(DISTINCT r.device_identifier) FROM registrations r
            WHERE \(merchant)::bigint IS NULL OR EXISTS (SELECT 1 FROM orders o WHERE o.merchant_id = \(merchant)
                  AND o.order_type_identifier = r.order_type_identifier AND o.order_identifier = r.order_identifier)
            """
        )
        // Every push queued since the start was last touched since then, so the index on updated_at finds them.
        for row in try await client.query(
            """
            SELECT status, created_at / 86400 AS queued, updated_at / 86400 AS touched,
                   greatest(updated_at - created_at, 0) AS seconds, created_at >= \(start) AS queued_since,
                   count(*) AS count
            FROM push_outbox WHERE updated_at >= \(start) AND (\(merchant)::bigint IS NULL OR merchant_id = \(merchant))
            GROUP BY status, queued, touched, seconds, queued_since
            """,
            logger: logger
        ) {
            let columns = Columns(row)
            let count = Int(try columns["count"] as Int64)
            let status = PushStatus(rawValue: try columns["status"]) ?? .failed
            if try columns["queued_since"] as Bool { activity.pushesQueued[try columns["queued"], default: 0] += count }
            switch status {
            case .pending, .sending:
                activity.outboxDepth += count
            case .delivered, .failed:
                let day: Int64 = try columns["touched"]
                activity.pushesFinished[day, default: [:]][status, default: 0] += count
                if status == .delivered {
                    activity.deliverySeconds[day, default: [:]][Int(try columns["seconds"] as Int64), default: 0] += count
                }
            }
        }
        // Pushes waiting since before the start (a long APNs outage) are in the outbox too.
        activity.outboxDepth += try await count(
            """
            SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending') AND updated_at < \(start)
              AND (\(merchant)::bigint IS NULL OR merchant_id = \(merchant))
            """
        )
        return activity
    }
}
