import GRDB
import Synchronization
import WalletOrdersStore

/// Writes that arrive while another transaction is being committed share the next one, and so its sync.
///
/// The store syncs the log at every commit (`PRAGMA synchronous = FULL`): an acknowledged write survives a power
/// loss, not only a killed process. A sync per write halved registrations. Here the single writer takes every write
/// waiting when it comes free, runs each in a savepoint of one transaction, and commits them together: under load
/// the writes queued behind a sync share the next one, and alone a write commits at once, as before.
///
/// Each write keeps its own outcome: one that throws rolls back to its savepoint and fails alone. Only a failed
/// commit, or SQLite abandoning the transaction (a full disk, an I/O error), fails the whole group, and then nothing
/// of it was stored.
final class GroupCommit: Sendable {
    private let pool: DatabasePool
    private struct Queue {
        var waiting: [any GroupedWrite] = []
        /// Whether a group is already asked of the writer; the writes arriving until it starts join it.
        var scheduled = false
    }
    private let queue = Mutex(Queue())

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// How many writes wait for the next group.
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// Runs `body` in the next group's transaction and answers what it answered once that transaction committed.
    func write<Result: Sendable>(_ body: @escaping @Sendable (Database) throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let write = Write(body: body, continuation: continuation)
            let schedule = queue.withLock { queue in
                queue.waiting.append(write)
                let first = !queue.scheduled
                queue.scheduled = true
                return first
            }
            if schedule { pool.asyncWriteWithoutTransaction { db in self.commitGroup(db) } }
        }
    }

    /// On the writer: takes every write waiting and commits them in one transaction. The writes that arrive
    /// meanwhile ask for the next group, which queues behind whatever else the writer has to do.
    private func commitGroup(_ db: Database) {
        let group = queue.withLock { queue in
            queue.scheduled = false
            let group = queue.waiting
            queue.waiting = []
            return group
        }
        guard !group.isEmpty else { return }
        do {
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            if group.count == 1 {
                // Alone, a write needs no savepoint: if it throws, the transaction rolls back.
                guard group[0].run(db) else { throw LoneWriteFailed() }
            } else {
                for write in group { try Self.runInSavepoint(write, db) }
            }
            try db.cachedStatement(sql: "COMMIT").execute()
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            for write in group { write.fail(error) }
            return
        }
        for write in group { write.complete() }
    }

    /// Runs `write` so that what it did is undone if it throws, and the group's other writes are kept.
    private static func runInSavepoint(_ write: any GroupedWrite, _ db: Database) throws {
        // Statements compiled once: a group runs these for every write in it.
        try db.cachedStatement(sql: "SAVEPOINT write").execute()
        if write.run(db) {
            try db.cachedStatement(sql: "RELEASE write").execute()
            return
        }
        // SQLite rolls a whole transaction back on some errors; what follows must not commit on its own.
        guard db.isInsideTransaction else { throw abandoned }
        try db.cachedStatement(sql: "ROLLBACK TO write").execute()
        try db.cachedStatement(sql: "RELEASE write").execute()
    }

    static let abandoned = StoreError.unexpected("SQLite rolled the transaction back")

    /// A group of one whose write threw: its caller gets that write's own error.
    private struct LoneWriteFailed: Error {}
}

/// A write waiting for its group, its result type erased.
private protocol GroupedWrite: Sendable {
    /// Runs the write in the group's transaction, keeping what it answered or threw; answers whether it answered.
    func run(_ db: Database) -> Bool
    /// The group committed: answers the caller.
    func complete()
    /// The group failed: throws the write's own error, or else `error`.
    func fail(_ error: any Error)
}

private final class Write<Result: Sendable>: GroupedWrite, @unchecked Sendable {
    // @unchecked: `outcome` is set by `run` and read by `complete`, both on the writer's queue, one after the other.
    private let body: @Sendable (Database) throws -> Result
    private let continuation: CheckedContinuation<Result, any Error>
    private var outcome: Swift.Result<Result, any Error>?

    init(body: @escaping @Sendable (Database) throws -> Result, continuation: CheckedContinuation<Result, any Error>) {
        self.body = body
        self.continuation = continuation
    }

    func run(_ db: Database) -> Bool {
        do {
            outcome = .success(try body(db))
            return true
        } catch {
            outcome = .failure(error)
            return false
        }
    }

    func complete() {
        continuation.resume(with: outcome ?? .failure(GroupCommit.abandoned))
    }

    func fail(_ error: any Error) {
        if case .failure(let own)? = outcome {
            continuation.resume(throwing: own)
        } else {
            continuation.resume(throwing: error)
        }
    }
}
