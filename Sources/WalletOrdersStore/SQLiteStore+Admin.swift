import Foundation
import GRDB
import WalletOrdersModel

/// One version of an order: when it was written and the status it had.
public struct OrderVersion: Sendable, Codable, Equatable {
    public let version: Int
    public let status: String
    public let updatedAt: Date
}

/// Counts for admins: what the database holds and how pushes went lately.
public struct StoreStats: Sendable, Codable, Equatable {
    public let orders: Int
    public let ordersByStatus: [String: Int]
    public let registrations: Int
    public let devices: Int
    public let deviceLogs: Int
    /// Pushes waiting to be sent: pending or being sent.
    public let outboxDepth: Int
    public let pushesByStatus: [String: Int]
    /// Pushes that reached `delivered` or `failed` in the last hour and the last day, by that status.
    public let pushesLastHour: [String: Int]
    public let pushesLastDay: [String: Int]
}

/// What admins read and fix: history, searches, counts, re-sends and pruning.
extension SQLiteStore {
    /// Every version of an order, oldest first.
    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT version, status, updated_at FROM order_versions
                WHERE order_type_identifier = ? AND order_identifier = ? ORDER BY version
                """, arguments: [type, id]).map { row in
                OrderVersion(version: row[0], status: row[1], updatedAt: Date(timeIntervalSince1970: Double(row[2] as Int64)))
            }
        }
    }

    /// Registrations newest first, of one device, of one order, or all of them.
    public func registrations(device: String? = nil, type: String? = nil, id: String? = nil,
                              limit: Int) async throws -> [Registration] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
                FROM registrations
                WHERE (?1 IS NULL OR device_identifier = ?1) AND (?2 IS NULL OR order_type_identifier = ?2)
                  AND (?3 IS NULL OR order_identifier = ?3)
                ORDER BY updated_at DESC, device_identifier LIMIT ?4
                """, arguments: [device, type, id, limit]).map(Self.registration)
        }
    }

    public func stats(now: Date) async throws -> StoreStats {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await pool.read { db in
            func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
                try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
            }
            func grouped(_ sql: String, _ arguments: StatementArguments = []) throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) { counts[row[0]] = row[1] }
                return counts
            }
            let finished = """
                SELECT status, COUNT(*) FROM push_outbox
                WHERE status IN ('delivered', 'failed') AND updated_at >= ? GROUP BY status
                """
            let pushes = try Self.pushCounts(db)
            return StoreStats(
                orders: try count("SELECT COUNT(*) FROM orders"),
                ordersByStatus: try grouped("SELECT status, COUNT(*) FROM orders GROUP BY status"),
                registrations: try count("SELECT COUNT(*) FROM registrations"),
                devices: try count("SELECT COUNT(DISTINCT device_identifier) FROM registrations"),
                deviceLogs: try count("SELECT COUNT(*) FROM device_logs"),
                outboxDepth: pushes.outboxDepth,
                pushesByStatus: pushes.byStatus,
                pushesLastHour: try grouped(finished, [seconds - 3_600]),
                pushesLastDay: try grouped(finished, [seconds - 86_400]))
        }
    }

    /// Queues a push to every device registered for an order again; returns how many devices that is.
    /// Nil when there is no such order.
    public func resendPushes(type: String, id: String, now: Date) async throws -> Int? {
        try await pool.write { db in
            guard try Self.fetchOrder(db, type: type, id: id) != nil else { return nil }
            return try Self.queuePushes(db, type: type, id: id, now: Int64(now.timeIntervalSince1970))
        }
    }

    /// Deletes registrations whose last push ended `failed` (the push token is dead or APNs refused it for
    /// good), with no delivered push since; returns how many went.
    public func pruneFailedRegistrations() async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: """
                DELETE FROM registrations AS r
                WHERE EXISTS (
                    SELECT 1 FROM push_outbox AS f
                    WHERE f.status = 'failed' AND f.order_type_identifier = r.order_type_identifier
                      AND f.order_identifier = r.order_identifier AND f.push_token = r.push_token
                      AND NOT EXISTS (
                          SELECT 1 FROM push_outbox AS d
                          WHERE d.status IN ('delivered', 'pending', 'sending') AND d.id > f.id
                            AND d.order_type_identifier = f.order_type_identifier
                            AND d.order_identifier = f.order_identifier AND d.push_token = f.push_token))
                """)
            return db.changesCount
        }
    }

    /// Deletes device log entries received before `date`; returns how many went.
    public func pruneLogs(before date: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM device_logs WHERE received_at < ?",
                           arguments: [Int64(date.timeIntervalSince1970)])
            return db.changesCount
        }
    }

    /// Builds every order's package again with `build` (after a certificate renewal, say) and stores it for
    /// the order's current version, one order per transaction so the server keeps serving meanwhile.
    /// Orders `build` answers nil for are skipped. Returns how many packages were rebuilt.
    public func rebuildPackages(
        build: @Sendable (_ type: String, _ order: OrderDocument, _ assets: [String: Data]) throws -> Data?
    ) async throws -> Int {
        var rebuilt = 0
        var cursor: Int64?
        while true {
            let page = try await orders(before: cursor, limit: 100)
            guard let last = page.last else { return rebuilt }
            cursor = last.cursor
            for summary in page {
                let type = summary.orderTypeIdentifier, id = summary.orderIdentifier
                let done = try await pool.write { db -> Bool in
                    guard let order = try Self.fetchOrder(db, type: type, id: id),
                          let data = try build(type, order.document, try Self.fetchAssets(db, type: type, id: id)) else {
                        return false
                    }
                    try Self.savePackage(db, type: type, id: id, version: order.version, data: data)
                    return true
                }
                if done { rebuilt += 1 }
            }
        }
    }
}
