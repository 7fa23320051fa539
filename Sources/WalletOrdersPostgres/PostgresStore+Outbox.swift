import Foundation
import PostgresNIO
import WalletOrdersStore

/// The push outbox in PostgreSQL, shared by every instance: claims skip rows another instance has locked, and
/// requeued pushes are inserted afresh so that they never collide with a newer pending push for the same token.
extension PostgresStore {
    public func claimDuePushes(types: [String], limit: Int, claim: OutboxClaim) async throws -> [PushJob] {
        guard !types.isEmpty, limit > 0 else { return [] }
        let now = clock.now()
        let leaseUntil = now.addingTimeInterval(claim.lease).unixSeconds
        let after = claimCursor.withLock { $0.start() }
        let rows = try await inDueOrder { connection in
            try await connection.query(
                """
                UPDATE push_outbox SET status = 'sending', attempts = attempts + 1, claimed_by = \(claim.owner),
                                       lease_until = \(leaseUntil), updated_at = \(now.unixSeconds)
                WHERE id IN (SELECT id FROM push_outbox
                             WHERE status = 'pending' AND next_attempt_at <= \(now.unixSeconds)
                               AND order_type_identifier = ANY(\(types)::text[])
                               AND (next_attempt_at, id) > (\(after?.at ?? Int64.min), \(after?.id ?? Int64.min))
                             ORDER BY next_attempt_at, id LIMIT \(limit)
                             FOR UPDATE SKIP LOCKED)
                RETURNING id, order_type_identifier, order_identifier, device_identifier, push_token, attempts,
                          next_attempt_at
                """,
                logger: self.logger
            ).collect()
        }
        var last: (at: Int64, id: Int64)?
        for row in rows {
            let columns = Columns(row)
            let key: (at: Int64, id: Int64) = (try columns["next_attempt_at"], try columns["id"])
            if last.map({ $0 < key }) ?? true { last = key }
        }
        claimCursor.withLock { $0.claimed(upTo: last, fromStart: after == nil) }
        return try rows.map(Self.job).sorted { $0.id < $1.id }
    }

    public func renewPushClaims(owner: String, lease: TimeInterval) async throws -> Int {
        let until = clock.now().addingTimeInterval(lease)
        return try await count(
            """
            WITH renewed AS (
                UPDATE push_outbox SET lease_until = \(until.unixSeconds)
                WHERE status = 'sending' AND claimed_by = \(owner) RETURNING 1)
            SELECT count(*) FROM renewed
            """
        )
    }

    public func releasePushClaims(owner: String) async throws -> Int {
        let released = try await requeue(owner: owner, expiredBefore: nil)
        if released > 0 { hub.publish(.pushesQueued) }
        return released
    }

    public func reclaimExpiredPushClaims() async throws -> Int {
        let reclaimed = try await requeue(owner: nil, expiredBefore: clock.now())
        if reclaimed > 0 { hub.publish(.pushesQueued) }
        return reclaimed
    }

    /// Puts `sending` pushes of `owner`, or whose lease ended before `expiredBefore`, back in the queue: each is
    /// replaced by a pending push unless its order and token have one already. Answers how many were taken back.
    private func requeue(owner: String?, expiredBefore: Date?) async throws -> Int {
        try await transaction { connection in
            let rows = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM push_outbox
                    WHERE status = 'sending'
                      AND (\(owner)::text IS NULL OR claimed_by = \(owner))
                      AND (\(expiredBefore?.unixSeconds)::bigint IS NULL OR lease_until < \(expiredBefore?.unixSeconds))
                    RETURNING order_type_identifier, order_identifier, device_identifier, push_token, attempts,
                              next_attempt_at, last_error, created_at, merchant_id),
                requeued AS (
                    INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token,
                                             status, attempts, next_attempt_at, last_error, created_at, updated_at,
                                             merchant_id)
                    SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', attempts,
                           next_attempt_at, last_error, created_at, \(self.clock.now().unixSeconds), merchant_id
                    FROM gone
                    ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending'
                    DO NOTHING
                    RETURNING 1)
                SELECT (SELECT count(*) FROM gone) AS taken, (SELECT count(*) FROM requeued) AS requeued
                """,
                logger: self.logger
            ).collect()
            let taken: Int64 = try rows.first.map { try Columns($0)["taken"] } ?? 0
            if taken > 0 { try await self.notify(connection, .pushesQueued) }
            return Int(taken)
        }
    }

    public func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String) async throws {
        guard !outcomes.isEmpty else { return }
        let now = clock.now()
        var delivered: [Int64] = []
        var failed: (ids: [Int64], reasons: [String]) = ([], [])
        // The notices failed pushes carry, by push.
        var notices: (ids: [Int64], notices: [WebhookNotice]) = ([], [])
        // `uncounted` is 1 for a push that never reached APNs: its attempt is given back.
        var retried: (ids: [Int64], at: [Int64], reasons: [String], uncounted: [Int64]) = ([], [], [], [])
        var rejected: [(PushJob, String)] = []
        for (job, outcome) in outcomes {
            switch outcome {
            case .delivered: delivered.append(job.id)
            case .failed(let reason, let notice):
                failed.ids.append(job.id)
                failed.reasons.append(reason)
                if let notice {
                    notices.ids.append(job.id)
                    notices.notices.append(notice)
                }
            case .retry(let delay, let reason):
                retried.ids.append(job.id)
                retried.at.append(now.addingTimeInterval(delay).unixSeconds)
                retried.reasons.append(reason)
                retried.uncounted.append(0)
            case .unsent(let reason):
                retried.ids.append(job.id)
                retried.at.append(now.unixSeconds)
                retried.reasons.append(reason)
                retried.uncounted.append(1)
            case .tokenRejected(let reason, let notice):
                // The push itself fails as any failed push does; its token's other pushes and registrations go below.
                failed.ids.append(job.id)
                failed.reasons.append(reason)
                if let notice {
                    notices.ids.append(job.id)
                    notices.notices.append(notice)
                }
                rejected.append((job, reason))
            }
        }
        let seconds = now.unixSeconds
        // The pushes that failed, and the notices they carry, for each the merchant the outbox row names.
        let failing = Self.failedPushes(failed, notices: notices, owner: owner, now: seconds)
        let (finished, failures, retries, rejections) = (delivered, failed, retried, rejected)
        let webhooks = try await transaction { connection -> Int in
            let (delivered, failed, retried, rejected) = (finished, failures, retries, rejections)
            // Every change is guarded by the claim: a push reclaimed from this owner belongs to someone else now.
            // Only a push being sent has an owner, so `claimed_by` alone says it is still this owner's; with
            // `status = 'sending'` too, the planner took the partial index of claims by owner rather than the primary
            // key, and under a transaction held open elsewhere that index is full of dead entries (a round's outcomes
            // took tens of milliseconds more each minute; see RELIABILITY.md, "A transaction held open").
            if !delivered.isEmpty {
                try await connection.query(
                    """
                    UPDATE push_outbox SET status = 'delivered', last_error = NULL, updated_at = \(seconds),
                                           claimed_by = NULL, lease_until = NULL
                    WHERE id = ANY(\(delivered)::bigint[]) AND claimed_by = \(owner)
                    """,
                    logger: self.logger
                )
            }
            var webhooks = 0
            if !failed.ids.isEmpty {
                webhooks += try await self.count(connection, failing)
            }
            if !retried.ids.isEmpty {
                // A new pending row rather than an update: a newer pending push for the same order and token may
                // exist, and then it does the job.
                try await connection.query(
                    """
                    WITH f AS (SELECT * FROM unnest(\(retried.ids)::bigint[], \(retried.at)::bigint[],
                                                    \(retried.reasons)::text[], \(retried.uncounted)::bigint[])
                                             AS f(id, at, reason, uncounted)),
                    gone AS (
                        DELETE FROM push_outbox p USING f
                        WHERE p.id = f.id AND p.claimed_by = \(owner)
                        RETURNING p.order_type_identifier, p.order_identifier, p.device_identifier, p.push_token,
                                  p.attempts - f.uncounted AS attempts, p.created_at, f.at, f.reason, p.merchant_id)
                    INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token,
                                             status, attempts, next_attempt_at, last_error, created_at, updated_at,
                                             merchant_id)
                    SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', attempts,
                           at, reason, created_at, \(seconds), merchant_id
                    FROM gone
                    ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending'
                    DO NOTHING
                    """,
                    logger: self.logger
                )
                try await self.notify(connection, .pushesQueued)
            }
            for (job, reason) in rejected {
                try await connection.query(
                    """
                    UPDATE push_outbox SET status = 'failed', last_error = \(reason), updated_at = \(seconds)
                    WHERE status = 'pending' AND push_token = \(job.pushToken)
                      AND order_type_identifier = \(job.orderTypeIdentifier)
                    """,
                    logger: self.logger
                )
                try await connection.query(
                    """
                    DELETE FROM registrations
                    WHERE push_token = \(job.pushToken) AND order_type_identifier = \(job.orderTypeIdentifier)
                    """,
                    logger: self.logger
                )
            }
            if webhooks > 0 { try await self.notify(connection, .webhooksQueued) }
            return webhooks
        }
        if !retried.ids.isEmpty { hub.publish(.pushesQueued) }
        if webhooks > 0 { hub.publish(.webhooksQueued) }
    }

    /// One statement that fails `failed` pushes still held by `owner` and queues the notices they carry, each for
    /// the merchant its outbox row names; its row counts the deliveries queued.
    private static func failedPushes(
        _ failed: (ids: [Int64], reasons: [String]),
        notices: (ids: [Int64], notices: [WebhookNotice]),
        owner: String,
        now: Int64
    ) -> PostgresQuery {
        let rows = """
            SELECT f.merchant_id, f.order_type_identifier, f.order_identifier, n.event, n.bit, n.detail
            FROM failed f
            JOIN unnest($5::bigint[], $6::text[], $7::bigint[], $8::text[]) AS n(id, event, bit, detail) ON n.id = f.id
            """
        let sql = """
            WITH failed AS (
                UPDATE push_outbox p SET status = 'failed', last_error = f.reason, updated_at = $3,
                                         claimed_by = NULL, lease_until = NULL
                FROM unnest($1::bigint[], $2::text[]) AS f(id, reason)
                WHERE p.id = f.id AND p.claimed_by = $4
                RETURNING p.id, p.order_type_identifier, p.order_identifier, p.merchant_id
            ), hooked AS (
                \(webhookFanOut(from: rows, now: "$3"))
            )
            SELECT count(*) FROM hooked
            """
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(failed.ids)
        bindings.append(failed.reasons)
        bindings.append(now)
        bindings.append(owner)
        bindings.append(notices.ids)
        bindNotices(notices.notices, to: &bindings)
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    public func nextPushDue(types: [String]) async throws -> Date? {
        guard !types.isEmpty else { return nil }
        // From where claims left off, as they look (see `claimDuePushes`).
        let after = claimCursor.withLock { $0.peek() }
        let rows = try await inDueOrder { connection in
            try await connection.query(
                """
                SELECT next_attempt_at FROM push_outbox
                WHERE status = 'pending' AND order_type_identifier = ANY(\(types)::text[])
                  AND (next_attempt_at, id) > (\(after?.at ?? Int64.min), \(after?.id ?? Int64.min))
                ORDER BY next_attempt_at, id LIMIT 1
                """,
                logger: self.logger
            ).collect()
        }
        return try rows.first.map { Date(unixSeconds: try $0.decode(Int64.self)) }
    }

    /// Runs `body` in a transaction whose statements read pending pushes in the order of the index of due pushes,
    /// from where the cursor starts. The planner's statistics make every index of pending pushes look alike (few
    /// rows), and it took the one by order, or by status, and sorted: a walk over every dead entry the open
    /// transaction kept (16 ms a claim five minutes into one, against 0.5 ms along the due index from the cursor).
    /// With sorting off it takes the index that is already in order.
    private func inDueOrder<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await transaction { connection in
            try await connection.query("SET LOCAL enable_sort = off", logger: self.logger)
            return try await body(connection)
        }
    }

    public func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord> {
        let rows = try await client.query(
            """
            SELECT id, order_type_identifier, order_identifier, device_identifier, status, attempts, next_attempt_at,
                   last_error, created_at, updated_at
            FROM push_outbox
            WHERE (\(filter.status?.rawValue)::text IS NULL OR status = \(filter.status?.rawValue))
              AND (\(filter.type)::text IS NULL OR order_type_identifier = \(filter.type))
              AND (\(filter.id)::text IS NULL OR order_identifier = \(filter.id))
              AND (\(page.before)::bigint IS NULL OR id < \(page.before))
              AND (\(filter.merchant)::bigint IS NULL OR merchant_id = \(filter.merchant))
            ORDER BY id DESC LIMIT \(page.limit + 1)
            """,
            logger: logger
        )
        return Page(
            rows: try rows.map { row in
                let push = try Self.push(row)
                return (push.id, push)
            },
            limit: page.limit
        )
    }

    public func pushCounts() async throws -> PushCounts {
        var counts: [PushStatus: Int] = [:]
        for row in try await client.query(
            """
            SELECT status, count(*) AS count FROM push_outbox GROUP BY status
            """,
            logger: logger
        ) {
            let columns = Columns(row)
            if let status = PushStatus(rawValue: try columns["status"]) { counts[status] = Int(try columns["count"] as Int64) }
        }
        return PushCounts(byStatus: counts)
    }

    public func prunePushes(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await count(
            """
            WITH gone AS (
                DELETE FROM push_outbox WHERE status IN ('delivered', 'failed') AND updated_at < \(date.unixSeconds)
                RETURNING 1)
            SELECT count(*) FROM gone
            """
        )
    }

    static func job(_ row: PostgresRow) throws -> PushJob {
        let columns = Columns(row)
        return PushJob(
            id: try columns["id"],
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            deviceIdentifier: try columns["device_identifier"],
            pushToken: try columns["push_token"],
            attempts: try columns["attempts"]
        )
    }

    static func push(_ row: PostgresRow) throws -> PushRecord {
        let columns = Columns(row)
        let text: String = try columns["status"]
        guard let status = PushStatus(rawValue: text) else { throw StoreError.unexpected("unknown push status \(text)") }
        return PushRecord(
            id: try columns["id"],
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            deviceIdentifier: try columns["device_identifier"],
            status: status,
            attempts: try columns["attempts"],
            nextAttemptAt: Date(unixSeconds: try columns["next_attempt_at"]),
            lastError: try columns["last_error"],
            createdAt: Date(unixSeconds: try columns["created_at"]),
            updatedAt: Date(unixSeconds: try columns["updated_at"])
        )
    }
}
