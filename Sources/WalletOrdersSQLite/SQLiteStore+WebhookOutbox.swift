import Foundation
import GRDB
import WalletOrdersStore

/// The webhook outbox in SQLite: deliveries claimed under a lease, their outcomes recorded, expired claims taken
/// back; its one writer serialises claims, so two claims never take the same delivery.
extension SQLiteStore {
    public func claimDueDeliveries(limit: Int, claim: OutboxClaim) async throws -> [WebhookJob] {
        guard limit > 0 else { return [] }
        let now = clock.now()
        return try await write { db in
            let ids = try Int64.fetchAll(
                db,
                sql: """
                    UPDATE webhook_deliveries SET status = 'sending', attempts = attempts + 1, claimed_by = ?,
                                                  lease_until = ?, updated_at = ?3
                    WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?3
                                   AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
                                 ORDER BY next_attempt_at, id LIMIT ?)
                    RETURNING id
                    """,
                arguments: [claim.owner, now.addingTimeInterval(claim.lease).unixSeconds, now.unixSeconds, limit]
            )
            guard !ids.isEmpty else { return [] }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT d.*, e.url, e.secret,
                           CASE WHEN e.previous_secret_until > ? THEN e.previous_secret END AS live_previous_secret,
                           m.id AS merchant, m.slug
                    FROM webhook_deliveries d
                    JOIN webhook_endpoints e ON e.id = d.endpoint_id
                    JOIN merchants m ON m.id = e.merchant_id
                    WHERE d.id IN (\(databaseQuestionMarks(count: ids.count)))
                    ORDER BY d.id
                    """,
                arguments: [now.unixSeconds] + StatementArguments(ids)
            ).map { row in
                WebhookJob(
                    delivery: try Self.delivery(row),
                    merchantID: row["merchant"],
                    merchantSlug: row["slug"],
                    url: row["url"],
                    secret: row["secret"],
                    previousSecret: row["live_previous_secret"]
                )
            }
        }
    }

    public func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String) async throws {
        guard !outcomes.isEmpty else { return }
        let now = clock.now()
        let seconds = now.unixSeconds
        try await write { db in
            let held = "id = ? AND status = 'sending' AND claimed_by = ?"
            for (job, outcome) in outcomes {
                let id = job.delivery.id
                switch outcome {
                case .delivered(let code):
                    try db.execute(
                        sql: """
                            UPDATE webhook_deliveries SET status = 'delivered', last_status_code = ?, last_error = NULL,
                                                          updated_at = ?, claimed_by = NULL, lease_until = NULL
                            WHERE \(held)
                            """,
                        arguments: [code, seconds, id, owner]
                    )
                case .retry(let delay, let code, let error):
                    try db.execute(
                        sql: """
                            UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, last_status_code = ?,
                                                          last_error = ?, updated_at = ?, claimed_by = NULL, lease_until = NULL
                            WHERE \(held)
                            """,
                        arguments: [now.addingTimeInterval(delay).unixSeconds, code, error, seconds, id, owner]
                    )
                case .failed(let code, let error, let reason):
                    try db.execute(
                        sql: """
                            UPDATE webhook_deliveries SET status = 'failed', last_status_code = ?, last_error = ?,
                                                          updated_at = ?, claimed_by = NULL, lease_until = NULL
                            WHERE \(held)
                            """,
                        arguments: [code, error, seconds, id, owner]
                    )
                    guard db.changesCount == 1 else { continue }
                    try db.execute(
                        sql: """
                            UPDATE webhook_endpoints SET disabled_at = ?1, disabled_reason = ?2, updated_at = ?1
                            WHERE id = ?3 AND disabled_at IS NULL
                            """,
                        arguments: [seconds, reason, job.delivery.endpointID]
                    )
                    try Self.failPending(db, endpoint: job.delivery.endpointID, reason: "the endpoint was disabled", now: now)
                }
            }
        }
    }

    public func renewDeliveryClaims(owner: String, lease: TimeInterval) async throws -> Int {
        let until = clock.now().addingTimeInterval(lease)
        return try await write { db in
            try db.execute(
                sql: "UPDATE webhook_deliveries SET lease_until = ? WHERE status = 'sending' AND claimed_by = ?",
                arguments: [until.unixSeconds, owner]
            )
            return db.changesCount
        }
    }

    public func releaseDeliveryClaims(owner: String) async throws -> Int {
        let released = try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL,
                                                  attempts = MAX(attempts - 1, 0)
                    WHERE status = 'sending' AND claimed_by = ?
                    """,
                arguments: [owner]
            )
            return db.changesCount
        }
        if released > 0 { hub.publish(.webhooksQueued) }
        return released
    }

    public func reclaimExpiredDeliveryClaims() async throws -> Int {
        let now = clock.now()
        let reclaimed = try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL
                    WHERE status = 'sending' AND lease_until < ?
                    """,
                arguments: [now.unixSeconds]
            )
            return db.changesCount
        }
        if reclaimed > 0 { hub.publish(.webhooksQueued) }
        return reclaimed
    }

    public func nextDeliveryDue() async throws -> Date? {
        try await pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MIN(next_attempt_at) FROM webhook_deliveries
                    WHERE status = 'pending' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
                    """
            ).map(Date.init(unixSeconds:))
        }
    }

    public func pruneDeliveries(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            try db.execute(
                sql: "DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?",
                arguments: [date.unixSeconds]
            )
            return db.changesCount
        }
    }
}
