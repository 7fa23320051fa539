import Foundation
import GRDB
import GRDBSQLite
import Synchronization

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

    /// Where checkpoints run: a serial queue of its own, at `utility` priority (nice 2 on Linux), behind every
    /// request's work (GRDB's queues run at `userInitiated`); the limit bounds how far the log can run ahead when
    /// the machine is busy. Not a task: a checkpoint blocks on I/O, and Swift's cooperative threads may all be busy.
    private let queue = DispatchQueue(label: "wallet-orders-checkpoint", qos: .utility)
    private let path: String
    /// Whether a checkpoint is queued and not started yet: commits past the threshold ask once, not each.
    private let asked = Atomic<Bool>(false)
    /// The checkpointer's own connection, opened at the first checkpoint; nil again once closed. Touched on `queue`.
    private let connection = Mutex<(queue: DatabaseQueue?, closed: Bool)>((nil, false))

    /// A checkpointer for the database at `path` (in WAL mode). Its connection opens at the first request.
    init(path: String) {
        self.path = path
    }

    private func request() {
        guard asked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        queue.async { self.checkpoint() }
    }

    private func checkpoint() {
        asked.store(false, ordering: .relaxed)
        let database = connection.withLock { state -> DatabaseQueue? in
            guard !state.closed else { return nil }
            if state.queue == nil {
                var configuration = Configuration()
                configuration.label = "wallet-orders-checkpoint"
                configuration.qos = .utility
                state.queue = try? DatabaseQueue(path: path, configuration: configuration)
            }
            return state.queue
        }
        // Passive: copies what no reader still needs and never waits for a lock; what it leaves, the next request
        // copies. A failure loses nothing: the log keeps every page, and the writer checkpoints itself at the limit.
        _ = try? database?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
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
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                if pages >= WALCheckpointer.limit {
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if pages >= WALCheckpointer.threshold {
                    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().request()
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    /// Stops checkpointing and closes the connection, after the checkpoint under way if any.
    func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                let database = self.connection.withLock { state -> DatabaseQueue? in
                    state.closed = true
                    defer { state.queue = nil }
                    return state.queue
                }
                try? database?.close()
                done.resume()
            }
        }
    }
}
