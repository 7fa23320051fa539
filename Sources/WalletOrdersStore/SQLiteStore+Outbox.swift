import Foundation
import GRDB

/// A push taken from the outbox to be sent.
public struct PushJob: Sendable, Equatable {
    public let id: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let deviceIdentifier: String
    public let pushToken: String
    /// Attempts so far, this one included.
    public let attempts: Int
}

/// What became of a push.
public enum PushOutcome: Sendable, Equatable {
    /// APNs accepted it.
    case delivered
    /// Try again at that time (429, 5xx, network trouble).
    case retry(at: Date, reason: String)
    /// Give up, with APNs' reason.
    case failed(reason: String)
    /// The token is dead for this topic (410 Unregistered, BadDeviceToken, DeviceTokenNotForTopic): its
    /// registrations for the order type go, and so do its other pending pushes.
    case tokenRejected(reason: String)
}

extension SQLiteStore {
    /// Marks up to `limit` due pending pushes of the order `types` as sending and returns them, oldest first.
    public func claimDuePushes(now: Date, limit: Int, types: [String]) async throws -> [PushJob] {
        let seconds = Int64(now.timeIntervalSince1970)
        guard !types.isEmpty else { return [] }
        return try await pool.write { db in
            let typeList = databaseQuestionMarks(count: types.count)
            let rows = try Row.fetchAll(db, sql: """
                UPDATE push_outbox SET status = 'sending', attempts = attempts + 1, updated_at = ?
                WHERE id IN (SELECT id FROM push_outbox
                             WHERE status = 'pending' AND next_attempt_at <= ? AND order_type_identifier IN (\(typeList))
                             ORDER BY next_attempt_at, id LIMIT ?)
                RETURNING id, order_type_identifier, order_identifier, device_identifier, push_token, attempts
                """, arguments: StatementArguments([seconds, seconds] + types.map { $0 as (any DatabaseValueConvertible) } + [limit]))
            return rows.map { row in
                PushJob(id: row[0], orderTypeIdentifier: row[1], orderIdentifier: row[2], deviceIdentifier: row[3],
                        pushToken: row[4], attempts: row[5])
            }.sorted { $0.id < $1.id }
        }
    }

    /// When the next pending push is due, or nil when none is pending.
    public func nextPushDue() async throws -> Date? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(next_attempt_at) FROM push_outbox WHERE status = 'pending'")
                .map { Date(timeIntervalSince1970: Double($0)) }
        }
    }

    /// Puts pushes that were being sent when the process stopped back in the queue: delivery is at least once,
    /// and a repeated push costs Wallet only one more fetch. Returns how many were put back.
    @discardableResult
    public func requeueInterruptedPushes() async throws -> Int {
        try await pool.write { db in
            // A newer pending push for the same order and token already covers an interrupted one.
            try db.execute(sql: "UPDATE OR IGNORE push_outbox SET status = 'pending' WHERE status = 'sending'")
            let requeued = db.changesCount
            try db.execute(sql: "DELETE FROM push_outbox WHERE status = 'sending'")
            return requeued
        }
    }

    /// Records what became of each push, in one transaction.
    public func finishPushes(_ outcomes: [(PushJob, PushOutcome)], now: Date) async throws {
        let seconds = Int64(now.timeIntervalSince1970)
        try await pool.write { db in
            for (job, outcome) in outcomes {
                switch outcome {
                case .delivered:
                    try db.execute(sql: """
                        UPDATE push_outbox SET status = 'delivered', last_error = NULL, updated_at = ? WHERE id = ?
                        """, arguments: [seconds, job.id])
                case .retry(let at, let reason):
                    try db.execute(sql: """
                        UPDATE OR IGNORE push_outbox SET status = 'pending', next_attempt_at = ?, last_error = ?,
                                                         updated_at = ?
                        WHERE id = ?
                        """, arguments: [Int64(at.timeIntervalSince1970), reason, seconds, job.id])
                    // Still 'sending' means a newer pending push for the same order and token exists: it will do.
                    try db.execute(sql: "DELETE FROM push_outbox WHERE id = ? AND status = 'sending'", arguments: [job.id])
                case .failed(let reason):
                    try db.execute(sql: """
                        UPDATE push_outbox SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?
                        """, arguments: [reason, seconds, job.id])
                case .tokenRejected(let reason):
                    try db.execute(sql: """
                        UPDATE push_outbox SET status = 'failed', last_error = ?1, updated_at = ?2
                        WHERE id = ?3 OR (push_token = ?4 AND order_type_identifier = ?5 AND status = 'pending')
                        """, arguments: [reason, seconds, job.id, job.pushToken, job.orderTypeIdentifier])
                    try db.execute(sql: """
                        DELETE FROM registrations WHERE push_token = ? AND order_type_identifier = ?
                        """, arguments: [job.pushToken, job.orderTypeIdentifier])
                }
            }
        }
    }
}

/// How many pushes the outbox holds in each status (`pending`, `sending`, `delivered`, `failed`).
public struct PushCounts: Sendable, Equatable {
    public let byStatus: [String: Int]

    /// Pushes waiting to be sent: pending or being sent.
    public var outboxDepth: Int { (byStatus["pending"] ?? 0) + (byStatus["sending"] ?? 0) }
}

extension SQLiteStore {
    public func pushCounts() async throws -> PushCounts {
        try await pool.read(Self.pushCounts)
    }

    static func pushCounts(_ db: Database) throws -> PushCounts {
        var counts: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS count FROM push_outbox GROUP BY status") {
            counts[row["status"]] = row["count"]
        }
        return PushCounts(byStatus: counts)
    }
}
