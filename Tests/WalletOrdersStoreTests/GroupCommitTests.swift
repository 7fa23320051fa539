import Foundation
import GRDB
import GRDBSQLite
import Synchronization
import Testing
@testable import WalletOrdersSQLite
import WalletOrdersStore
import WalletOrdersTesting

/// Group commit: writes waiting for the writer share one transaction, each keeps its own outcome, and a group
/// SQLite abandons stores nothing.
@Suite struct GroupCommitTests {
    struct Refused: Error, Equatable {}

    /// Counts the commits of one connection (`sqlite3_commit_hook`).
    final class CommitCounter: Sendable {
        let commits = Atomic<Int>(0)
    }

    /// A pool on a new file with a table `rows`, the group committing to it, and the writer's commits counted.
    /// The hook holds the counter unretained: keep it alive until the pool is closed.
    static func database(in folder: TemporaryDirectory) throws -> (DatabasePool, GroupCommit, CommitCounter) {
        let pool = try DatabasePool(path: folder.path("group.sqlite"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE rows (name TEXT PRIMARY KEY)") }
        let counter = CommitCounter()
        try pool.writeWithoutTransaction { db in
            sqlite3_commit_hook(db.sqliteConnection, { context in
                Unmanaged<CommitCounter>.fromOpaque(context!).takeUnretainedValue().commits.add(1, ordering: .relaxed)
                return 0
            }, Unmanaged.passUnretained(counter).toOpaque())
        }
        return (pool, GroupCommit(pool: pool), counter)
    }

    /// Runs `writes` while the writer is held, so that they all wait for the same group, then lets it go.
    static func grouped<Result: Sendable>(
        _ group: GroupCommit, pool: DatabasePool, _ writes: [@Sendable (Database) throws -> Result]
    ) async throws -> [Swift.Result<Result, any Error>] {
        let held = DispatchSemaphore(value: 0)
        pool.asyncWriteWithoutTransaction { _ in held.wait() }
        let tasks = writes.map { write in Task { try await group.write(write) } }
        let deadline = ContinuousClock.now + .seconds(20)
        while group.waitingCount < writes.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(group.waitingCount == writes.count)
        held.signal()
        var results: [Swift.Result<Result, any Error>] = []
        for task in tasks { results.append(await task.result) }
        return results
    }

    static func names(_ pool: DatabasePool) throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM rows ORDER BY name") }
    }

    @Test func writesWaitingTogetherCommitOnceAndAWriteThatThrowsFailsAlone() async throws {
        let folder = try TemporaryDirectory()
        let (pool, group, counter) = try Self.database(in: folder)
        let before = counter.commits.load(ordering: .relaxed)
        let writes: [@Sendable (Database) throws -> Int] = [
            { db in try db.execute(sql: "INSERT INTO rows VALUES ('a')"); return 1 },
            { db in try db.execute(sql: "INSERT INTO rows VALUES ('b')"); throw Refused() },
            { db in try db.execute(sql: "INSERT INTO rows VALUES ('c')"); return 3 },
        ]
        let results = try await Self.grouped(group, pool: pool, writes)
        #expect(try results[0].get() == 1)
        #expect(throws: Refused.self) { try results[1].get() }
        #expect(try results[2].get() == 3)
        // The refused write's row went with its savepoint; the others' stayed, in one commit.
        #expect(try Self.names(pool) == ["a", "c"])
        #expect(counter.commits.load(ordering: .relaxed) - before == 1)
        try pool.close()
        withExtendedLifetime(counter) {}
    }

    @Test func aGroupSQLiteRollsBackStoresNothingAndFailsEveryWrite() async throws {
        let folder = try TemporaryDirectory()
        let (pool, group, counter) = try Self.database(in: folder)
        // A trigger that rolls back the whole transaction, as SQLite itself does on some errors (a full disk).
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TEMP TABLE poison (name TEXT);
                CREATE TEMP TRIGGER abandon BEFORE INSERT ON poison BEGIN SELECT RAISE(ROLLBACK, 'abandoned'); END;
                """)
        }
        let writes: [@Sendable (Database) throws -> Void] = [
            { db in try db.execute(sql: "INSERT INTO rows VALUES ('a')") },
            { db in try db.execute(sql: "INSERT INTO poison VALUES ('b')") },
            { db in try db.execute(sql: "INSERT INTO rows VALUES ('c')") },
        ]
        let results = try await Self.grouped(group, pool: pool, writes)
        // The write that set it off says why; the others, that their group was abandoned.
        #expect(throws: DatabaseError.self) { try results[1].get() }
        #expect(throws: StoreError.self) { try results[0].get() }
        #expect(throws: StoreError.self) { try results[2].get() }
        // Neither the write before the rollback nor the one after it was stored: every caller was told so.
        #expect(try Self.names(pool) == [])
        // The writer is usable again.
        try await group.write { db in try db.execute(sql: "INSERT INTO rows VALUES ('d')") }
        #expect(try Self.names(pool) == ["d"])
        try pool.close()
        withExtendedLifetime(counter) {}
    }

    @Test func theStoreSyncsEveryCommit() async throws {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path("orders.sqlite"))
        _ = try await store.migrate()
        // 2 is FULL: the log is synced at each commit, so what a write acknowledged survives a power loss.
        let synchronous = try await store.pool.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        #expect(synchronous == 2)
        await store.close()
    }
}
