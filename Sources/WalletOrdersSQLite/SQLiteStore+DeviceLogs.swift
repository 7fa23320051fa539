import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// What devices send to the log endpoint, folded and bounded in size.
extension SQLiteStore {
    public func appendLogs(
        _ messages: [String],
        merchants: [String: Int64],
        remoteAddress: String?,
        maxBytes: Int
    ) async throws -> DeviceLogAppend {
        let now = clock.now()
        guard !messages.isEmpty else { return DeviceLogAppend() }
        return try await write { db in
            var outcome = DeviceLogAppend()
            var added = 0
            let fold = try db.cachedStatement(
                sql: """
                    UPDATE device_logs SET count = count + ?, last_seen_at = ?, remote_address = ?
                    WHERE message_hash = ? AND message = ?
                    """
            )
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO device_logs (received_at, last_seen_at, remote_address, message, message_hash, count, size,
                                             merchant_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            )
            for (message, count) in DeviceLogBatch(messages).counted {
                let hash = DeviceLogEntry.digest(of: message)
                try fold.execute(arguments: [count, now.unixSeconds, remoteAddress, hash, message])
                if db.changesCount > 0 {
                    outcome.folded += count
                    continue
                }
                let size = DeviceLogEntry.storedSize(of: message)
                try insert.execute(arguments: [
                    now.unixSeconds, now.unixSeconds, remoteAddress, message, hash, count, size, merchants[message],
                ])
                outcome.stored += 1
                outcome.folded += count - 1
                added += size
            }
            var total = try Self.addLogBytes(db, added)
            // The entries last seen longest ago go first, a batch at a time, until the total fits.
            while total > maxBytes {
                let oldest = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, size FROM device_logs ORDER BY last_seen_at, id LIMIT 256
                        """
                )
                guard !oldest.isEmpty else { break }
                var freed = 0
                var ids: [Int64] = []
                for row in oldest where total - freed > maxBytes {
                    ids.append(row["id"])
                    freed += row["size"] as Int
                }
                let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                try db.execute(
                    sql: "DELETE FROM device_logs WHERE id IN (\(placeholders))",
                    arguments: StatementArguments(ids)
                )
                outcome.evicted += ids.count
                total = try Self.addLogBytes(db, -freed)
            }
            return outcome
        }
    }

    /// Moves the device log's byte counter by `bytes`; answers the new total.
    private static func addLogBytes(_ db: Database, _ bytes: Int) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                UPDATE counters SET value = value + ? WHERE name = 'device_log_bytes' RETURNING value
                """,
            arguments: [bytes]
        ) ?? 0
    }

    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, received_at, last_seen_at, remote_address, message, count FROM device_logs
                    WHERE (?1 IS NULL OR id < ?1) AND (?3 IS NULL OR last_seen_at >= ?3)
                      AND (?4 IS NULL OR instr(lower(message), lower(?4)) > 0)
                      AND (?5 IS NULL OR (CASE WHEN ?5 = ?6 THEN merchant_id IS NULL ELSE merchant_id = ?5 END))
                    ORDER BY id DESC LIMIT ?2
                    """,
                arguments: [
                    page.before, page.limit + 1, filter.since?.unixSeconds, filter.containing, filter.merchant,
                    Merchant.defaultID,
                ]
            )
            return Page(
                rows: rows.map { row in
                    (
                        row["id"],
                        DeviceLogEntry(
                            id: row["id"],
                            receivedAt: Date(unixSeconds: row["received_at"]),
                            remoteAddress: row["remote_address"],
                            message: row["message"],
                            count: row["count"],
                            lastSeenAt: Date(unixSeconds: row["last_seen_at"])
                        )
                    )
                },
                limit: page.limit
            )
        }
    }

    public func logBytes() async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'device_log_bytes'") ?? 0
        }
    }

    public func pruneLogs(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            let sizes = try Int.fetchAll(
                db,
                sql: "DELETE FROM device_logs WHERE last_seen_at < ? RETURNING size",
                arguments: [date.unixSeconds]
            )
            _ = try Self.addLogBytes(db, -sizes.reduce(0, +))
            return sizes.count
        }
    }
}
