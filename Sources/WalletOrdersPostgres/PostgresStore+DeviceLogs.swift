import Foundation
import Logging
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// What devices send to the log endpoint, folded and bounded in size.
extension PostgresStore {
    public func appendLogs(
        _ messages: [String],
        merchants: [String: Int64],
        remoteAddress: String?,
        maxBytes: Int
    ) async throws -> DeviceLogAppend {
        let now = clock.now()
        guard !messages.isEmpty else { return DeviceLogAppend() }
        let at = now.unixSeconds
        return try await transaction { connection in
            // The counter row first: appends from several instances take turns, so one never evicts a row
            // another has just folded into while that one waits for the counter (a deadlock).
            var total = Int(
                try await connection.query(
                    """
                    SELECT value FROM counters WHERE name = 'device_log_bytes' FOR UPDATE
                    """,
                    logger: self.logger
                ).collect().first?.decode(Int64.self) ?? 0
            )
            // One statement for the whole request: fold what is already there, insert the rest in the order sent.
            // A request of a hundred messages is one round trip, not two hundred.
            let batch = DeviceLogBatch(messages).counted
            let texts = batch.map(\.message)
            let hashes = texts.map(DeviceLogEntry.digest(of:))
            let counts = batch.map { Int64($0.count) }
            let sizes = texts.map { Int64(DeviceLogEntry.storedSize(of: $0)) }
            // Arrays carry no nulls here: 0 stands for "no merchant".
            let owners = texts.map { merchants[$0] ?? 0 }
            let rows = try await connection.query(
                """
                WITH sent AS (
                    SELECT * FROM unnest(\(texts)::text[], \(hashes)::bigint[], \(counts)::bigint[], \(sizes)::bigint[],
                                         \(owners)::bigint[])
                        WITH ORDINALITY AS s(message, hash, count, size, merchant_id, position)
                ), folded AS (
                    UPDATE device_logs d SET count = d.count + s.count, last_seen_at = \(at), remote_address = \(remoteAddress)
                    FROM sent s WHERE d.message_hash = s.hash AND d.message = s.message
                    RETURNING s.position, s.count
                ), inserted AS (
                    INSERT INTO device_logs (received_at, last_seen_at, remote_address, message, message_hash, count, size,
                                             merchant_id)
                    SELECT \(at), \(at), \(remoteAddress), s.message, s.hash, s.count, s.size, NULLIF(s.merchant_id, 0)
                    FROM sent s
                    WHERE s.position NOT IN (SELECT position FROM folded)
                    ORDER BY s.position
                    RETURNING count, size
                )
                SELECT (SELECT coalesce(sum(count), 0) FROM folded)::bigint,
                       (SELECT count(*) FROM inserted)::bigint,
                       (SELECT coalesce(sum(count), 0) FROM inserted)::bigint,
                       (SELECT coalesce(sum(size), 0) FROM inserted)::bigint
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first else { throw StoreError.unexpected("appending device logs answered no row") }
            let (foldedCount, storedRows, storedCount, storedSize) = try row.decode((Int64, Int64, Int64, Int64).self)
            var outcome = DeviceLogAppend()
            outcome.stored = Int(storedRows)
            outcome.folded = Int(foldedCount + storedCount - storedRows)
            let added = Int(storedSize)
            total += added
            // The entries last seen longest ago go first, a batch at a time, until the total fits.
            var freed = 0
            while total - freed > maxBytes {
                let oldest = try await connection.query(
                    """
                    SELECT id, size FROM device_logs ORDER BY last_seen_at, id LIMIT 256
                    """,
                    logger: self.logger
                ).collect()
                guard !oldest.isEmpty else { break }
                var ids: [Int64] = []
                for row in oldest where total - freed > maxBytes {
                    let (id, size) = try row.decode((Int64, Int64).self)
                    ids.append(id)
                    freed += Int(size)
                }
                try await connection.query("DELETE FROM device_logs WHERE id = ANY(\(ids))", logger: self.logger)
                outcome.evicted += ids.count
            }
            try await connection.query(
                """
                UPDATE counters SET value = value + \(Int64(added - freed)) WHERE name = 'device_log_bytes'
                """,
                logger: self.logger
            )
            return outcome
        }
    }

    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        // strpos over lower(): a plain substring test, like SQLite's instr, with no LIKE wildcards to escape.
        let rows = try await client.query(
            """
            SELECT id, received_at, last_seen_at, remote_address, message, count FROM device_logs
            WHERE (\(page.before)::bigint IS NULL OR id < \(page.before))
              AND (\(filter.since?.unixSeconds)::bigint IS NULL OR last_seen_at >= \(filter.since?.unixSeconds))
              AND (\(filter.containing)::text IS NULL OR strpos(lower(message), lower(\(filter.containing))) > 0)
              AND (\(filter.merchant)::bigint IS NULL
                   OR (CASE WHEN \(filter.merchant)::bigint = \(Merchant.defaultID) THEN merchant_id IS NULL
                            ELSE merchant_id = \(filter.merchant) END))
            ORDER BY id DESC LIMIT \(page.limit + 1)
            """,
            logger: logger
        )
        return Page(
            rows: try rows.map { row in
                let columns = Columns(row)
                let id: Int64 = try columns["id"]
                let count: Int64 = try columns["count"]
                return (
                    id,
                    DeviceLogEntry(
                        id: id,
                        receivedAt: Date(unixSeconds: try columns["received_at"]),
                        remoteAddress: try columns["remote_address"],
                        message: try columns["message"],
                        count: Int(count),
                        lastSeenAt: Date(unixSeconds: try columns["last_seen_at"])
                    )
                )
            },
            limit: page.limit
        )
    }

    public func logBytes() async throws -> Int {
        Int(try await first(Int64.self, "SELECT value FROM counters WHERE name = 'device_log_bytes'") ?? 0)
    }

    public func pruneLogs(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await transaction { connection in
            _ = try await connection.query(
                "SELECT 1 FROM counters WHERE name = 'device_log_bytes' FOR UPDATE",
                logger: self.logger
            ).collect()
            let rows = try await connection.query(
                """
                WITH gone AS (DELETE FROM device_logs WHERE last_seen_at < \(date.unixSeconds) RETURNING size)
                SELECT count(*), COALESCE(sum(size), 0)::bigint FROM gone
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first else { return 0 }
            let (count, bytes) = try row.decode((Int64, Int64).self)
            try await connection.query(
                """
                UPDATE counters SET value = value - \(bytes) WHERE name = 'device_log_bytes'
                """,
                logger: self.logger
            )
            return Int(count)
        }
    }
}
