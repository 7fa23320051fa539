import Foundation
import GRDB
import GRDBSQLite

/// Copies the write-ahead log back into the database file from a connection of its own, so no write waits for it.
///
/// SQLite's automatic checkpoint runs inside the commit that grows the log past a thousand pages: that commit
/// reads every page back from the log, writes it into the database, syncs both files, and every other write
/// (a device's registration, a push outcome) waits behind it on the single writer. Here that commit only asks
/// for a checkpoint, and a connection that never writes does it while the writer goes on.
final class WALCheckpointer: Sendable {
    /// The log's length in pages after which a checkpoint is asked for: SQLite's own threshold.
    static let threshold: Int32 = 1000
    /// The log's length in pages after which the committing connection checkpoints itself, as SQLite would. The
    /// log starts again from its beginning only once a checkpoint has copied all of it before the next write, which
    /// one running beside a steady stream of writes may not manage; this bounds the file whatever happens.
    static let limit: Int32 = 16 * threshold

    private let requests: AsyncStream<Void>.Continuation
    private let worker: Task<Void, Never>

    /// A checkpointer for the database at `path` (in WAL mode). Its connection opens at the first request.
    init(path: String) {
        let (stream, requests) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.requests = requests
        worker = Task {
            var connection: DatabaseQueue?
            for await _ in stream {
                do {
                    if connection == nil {
                        var configuration = Configuration()
                        configuration.label = "wallet-orders-checkpoint"
                        // Behind every request's work (GRDB's default is userInitiated); the limit bounds how far
                        // the log can run ahead when the machine is busy.
                        configuration.qos = .utility
                        connection = try DatabaseQueue(path: path, configuration: configuration)
                    }
                    // Passive: copies what no reader still needs and never waits for a lock; what it leaves, the
                    // next request copies.
                    _ = try await connection?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                } catch {
                    // Nothing is lost: the log keeps every page, and the writer checkpoints itself at the limit.
                }
            }
            try? connection?.close()
        }
    }

    /// Makes `db`'s commits ask this checkpointer instead of checkpointing themselves (SQLite's own checkpoint
    /// is the hook this replaces). Call from the pool's `prepareDatabase`, for every connection.
    ///
    /// The hook holds this checkpointer unretained: it runs only inside a commit on one of the pool's connections,
    /// and the store that owns the pool owns this checkpointer too.
    func watch(_ db: Database) throws {
        // A long transaction (a migration, an import) can leave a log far past the limit; once copied, the file is
        // cut back to the limit's size instead of keeping that disk space.
        try db.execute(sql: "PRAGMA journal_size_limit = \(Int(Self.limit) * 4096)")
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, name, pages in
            guard let context else { return SQLITE_OK }
            if pages >= WALCheckpointer.limit {
                sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            } else if pages >= WALCheckpointer.threshold {
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().requests.yield()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops checkpointing and closes the connection, after the checkpoint under way if any.
    func close() async {
        requests.finish()
        await worker.value
    }
}
