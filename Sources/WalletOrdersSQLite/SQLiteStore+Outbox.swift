import Foundation
import GRDB
import WalletOrdersStore

/// The push outbox in SQLite: its one writer serialises claims, so two claims never take the same push.
extension SQLiteStore {
    public func claimDuePushes(types: [String], limit: Int, claim: OutboxClaim) async throws -> [PushJob] {
        guard !types.isEmpty, limit > 0 else { return [] }
        let now = clock.now()
        return try await write { db in
            let typeList = databaseQuestionMarks(count: types.count)
            var arguments: StatementArguments = [
                claim.owner, now.addingTimeInterval(claim.lease).unixSeconds, now.unixSeconds,
            ]
            arguments += StatementArguments(types)
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: """
                    UPDATE push_outbox SET status = 'sending', attempts = attempts + 1, claimed_by = ?, lease_until = ?,
                                           updated_at = ?3
                    WHERE id IN (SELECT id FROM push_outbox
                                 WHERE status = 'pending' AND next_attempt_at <= ?3
                                   AND order_type_identifier IN (\(typeList))
                                 ORDER BY next_attempt_at, id LIMIT ?)
                    RETURNING id, order_type_identifier, order_identifier, device_identifier, push_token, attempts
                    """,
                arguments: arguments
            ).map(Self.job).sorted { $0.id < $1.id }
        }
    }

    public func renewPushClaims(owner: String, lease: TimeInterval) async throws -> Int {
        let until = clock.now().addingTimeInterval(lease)
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE push_outbox SET lease_until = ? WHERE status = 'sending' AND claimed_by = ?
                    """,
                arguments: [until.unixSeconds, owner]
            )
            return db.changesCount
        }
    }

    public func releasePushClaims(owner: String) async throws -> Int {
        let released = try await write { db in
            try Self.requeue(db, where: "claimed_by = ?", [owner])
        }
        if released > 0 { hub.publish(.pushesQueued) }
        return released
    }

    public func reclaimExpiredPushClaims() async throws -> Int {
        let now = clock.now()
        let reclaimed = try await write { db in
            try Self.requeue(db, where: "lease_until < ?", [now.unixSeconds])
        }
        if reclaimed > 0 { hub.publish(.pushesQueued) }
        return reclaimed
    }

    /// Puts `sending` pushes matching `condition` back to pending; one whose order and token already have a
    /// pending push goes instead, since that push covers it. Answers how many went back or went.
    private static func requeue(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> Int {
        try db.execute(
            sql: """
                UPDATE OR IGNORE push_outbox SET status = 'pending', claimed_by = NULL, lease_until = NULL
                WHERE status = 'sending' AND \(condition)
                """,
            arguments: arguments
        )
        let requeued = db.changesCount
        try db.execute(sql: "DELETE FROM push_outbox WHERE status = 'sending' AND \(condition)", arguments: arguments)
        return requeued + db.changesCount
    }

    public func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String) async throws {
        guard !outcomes.isEmpty else { return }
        let now = clock.now()
        let seconds = now.unixSeconds
        let (requeued, webhooks) = try await write { db -> (Bool, Int) in
            // Every change is guarded by the claim: a push reclaimed from this owner belongs to someone else now.
            let held = "id = ? AND status = 'sending' AND claimed_by = ?"
            let delivered = try db.cachedStatement(
                sql: """
                    UPDATE push_outbox SET status = 'delivered', last_error = NULL, updated_at = ?, claimed_by = NULL,
                                           lease_until = NULL
                    WHERE \(held)
                    """
            )
            var requeued = false
            var webhooks = 0
            for (job, outcome) in outcomes {
                switch outcome {
                case .delivered:
                    try delivered.execute(arguments: [seconds, job.id, owner])
                case .retry(let delay, let reason):
                    try db.execute(
                        sql: """
                            UPDATE OR IGNORE push_outbox SET status = 'pending', next_attempt_at = ?, last_error = ?,
                                                             updated_at = ?, claimed_by = NULL, lease_until = NULL
                            WHERE \(held)
                            """,
                        arguments: [now.addingTimeInterval(delay).unixSeconds, reason, seconds, job.id, owner]
                    )
                    // Still held means a newer pending push for the same order and token exists: it will do.
                    try db.execute(sql: "DELETE FROM push_outbox WHERE \(held)", arguments: [job.id, owner])
                    requeued = true
                case .unsent(let reason):
                    try db.execute(
                        sql: """
                            UPDATE OR IGNORE push_outbox SET status = 'pending', attempts = attempts - 1, last_error = ?,
                                                             updated_at = ?, claimed_by = NULL, lease_until = NULL
                            WHERE \(held)
                            """,
                        arguments: [reason, seconds, job.id, owner]
                    )
                    try db.execute(sql: "DELETE FROM push_outbox WHERE \(held)", arguments: [job.id, owner])
                    requeued = true
                case .failed(let reason, let notice), .tokenRejected(let reason, let notice):
                    // The merchant the outbox row names is told, as on every engine.
                    let merchant = try Int64.fetchOne(
                        db,
                        sql: """
                            UPDATE push_outbox SET status = 'failed', last_error = ?, updated_at = ?, claimed_by = NULL,
                                                   lease_until = NULL
                            WHERE \(held)
                            RETURNING merchant_id
                            """,
                        arguments: [reason, seconds, job.id, owner]
                    )
                    if let merchant, let notice {
                        webhooks += try Self.queueWebhooks(
                            db,
                            [notice],
                            type: job.orderTypeIdentifier,
                            id: job.orderIdentifier,
                            merchant: merchant,
                            now: now
                        )
                    }
                    // A token APNs refused fails its other pushes too, and its registrations go.
                    guard case .tokenRejected = outcome else { continue }
                    try db.execute(
                        sql: """
                            UPDATE push_outbox SET status = 'failed', last_error = ?, updated_at = ?
                            WHERE status = 'pending' AND push_token = ? AND order_type_identifier = ?
                            """,
                        arguments: [reason, seconds, job.pushToken, job.orderTypeIdentifier]
                    )
                    try db.execute(
                        sql: """
                            DELETE FROM registrations WHERE push_token = ? AND order_type_identifier = ?
                            """,
                        arguments: [job.pushToken, job.orderTypeIdentifier]
                    )
                }
            }
            return (requeued, webhooks)
        }
        if requeued { hub.publish(.pushesQueued) }
        if webhooks > 0 { hub.publish(.webhooksQueued) }
    }

    public func nextPushDue(types: [String]) async throws -> Date? {
        guard !types.isEmpty else { return nil }
        return try await pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MIN(next_attempt_at) FROM push_outbox
                    WHERE status = 'pending' AND order_type_identifier IN (\(databaseQuestionMarks(count: types.count)))
                    """,
                arguments: StatementArguments(types)
            ).map(Date.init(unixSeconds:))
        }
    }

    public func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord> {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, order_type_identifier, order_identifier, device_identifier, status, attempts, next_attempt_at,
                           last_error, created_at, updated_at
                    FROM push_outbox
                    WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR order_type_identifier = ?2)
                      AND (?3 IS NULL OR order_identifier = ?3) AND (?4 IS NULL OR id < ?4)
                      AND (?6 IS NULL OR merchant_id = ?6)
                    ORDER BY id DESC LIMIT ?5
                    """,
                arguments: [filter.status?.rawValue, filter.type, filter.id, page.before, page.limit + 1, filter.merchant]
            )
            return Page(rows: try rows.map { row in (row["id"], try Self.push(row)) }, limit: page.limit)
        }
    }

    public func pushCounts() async throws -> PushCounts {
        try await pool.read(Self.pushCounts)
    }

    static func pushCounts(_ db: Database) throws -> PushCounts {
        var counts: [PushStatus: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS count FROM push_outbox GROUP BY status") {
            if let status = PushStatus(rawValue: row["status"]) { counts[status] = row["count"] }
        }
        return PushCounts(byStatus: counts)
    }

    public func prunePushes(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM push_outbox WHERE status IN ('delivered', 'failed') AND updated_at < ?
                    """,
                arguments: [date.unixSeconds]
            )
            return db.changesCount
        }
    }

    static func job(_ row: Row) -> PushJob {
        PushJob(
            id: row["id"],
            orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"],
            deviceIdentifier: row["device_identifier"],
            pushToken: row["push_token"],
            attempts: row["attempts"]
        )
    }

    static func push(_ row: Row) throws -> PushRecord {
        let text: String = row["status"]
        guard let status = PushStatus(rawValue: text) else { throw StoreError.unexpected("unknown push status \(text)") }
        return PushRecord(
            id: row["id"],
            orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"],
            deviceIdentifier: row["device_identifier"],
            status: status,
            attempts: row["attempts"],
            nextAttemptAt: Date(unixSeconds: row["next_attempt_at"]),
            lastError: row["last_error"],
            createdAt: Date(unixSeconds: row["created_at"]),
            updatedAt: Date(unixSeconds: row["updated_at"])
        )
    }
}
