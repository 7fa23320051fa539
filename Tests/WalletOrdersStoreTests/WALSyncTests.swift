import Foundation
import Synchronization
import Testing
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersSQLite

/// Durable writes without a sync on the writer: a write returns only after a sync of the log that began after it
/// committed, and the writes waiting together share one.
@Suite(.timeLimit(.minutes(5))) struct WALSyncTests {
    /// A sync function that counts its calls and holds the first one until `release` is signalled.
    final class HeldSync: Sendable {
        let calls = Atomic<Int>(0)
        let release = DispatchSemaphore(value: 0)

        func sync(_ descriptor: Int32) -> Int32 {
            if calls.add(1, ordering: .relaxed).newValue == 1 { release.wait() }
            return fdatasync(descriptor)
        }
    }

    /// Generous: under the full suite, CPU-bound tests can hold both cooperative threads (this machine has two
    /// cores) for tens of seconds, and the callers here are tasks that must get one to start.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    @Test func callersArrivingDuringASyncWaitForTheNextAndShareIt() async throws {
        let folder = try TemporaryDirectory()
        let database = folder.path("held.sqlite")
        try Data("log".utf8).write(to: URL(fileURLWithPath: database + "-wal"))
        let held = HeldSync()
        let sync = WALSync(databasePath: database, syncFile: { held.sync($0) })
        let first = Task { try await sync.sync() }
        try await Self.waitUntil { held.calls.load(ordering: .relaxed) == 1 }
        // These commit while the first sync runs: it may have started before their pages were written.
        let later = [Task { try await sync.sync() }, Task { try await sync.sync() }]
        try await Self.waitUntil { sync.waitingCount == 2 }
        held.release.signal()
        try await first.value
        for task in later { try await task.value }
        // One more sync for both of them: not none (the first one's would not do), not one each.
        #expect(held.calls.load(ordering: .relaxed) == 2)
        #expect(sync.syncCount == 2)
    }

    @Test func aLogReplacedOnDiskIsOpenedAgain() async throws {
        let folder = try TemporaryDirectory()
        let database = folder.path("replaced.sqlite")
        let log = URL(fileURLWithPath: database + "-wal")
        try Data("first".utf8).write(to: log)
        let sync = WALSync(databasePath: database)
        try await sync.sync()
        let before = sync.syncedInode
        // Kept open, the old file's inode is not reused for the new one.
        try FileManager.default.removeItem(at: log)
        try Data("second".utf8).write(to: log)
        try await sync.sync()
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: log.path)[.systemFileNumber] as? Int)
        #expect(sync.syncedInode == UInt64(inode))
        #expect(sync.syncedInode != before)
    }

    @Test func aLogThatCannotBeSyncedFailsTheWrite() async throws {
        let folder = try TemporaryDirectory()
        let sync = WALSync(databasePath: folder.path("missing.sqlite"))
        await #expect(throws: WALSyncError.self) { try await sync.sync() }
    }

    @Test func theStoresWritesReturnAfterASync() async throws {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path("orders.sqlite"))
        _ = try await store.migrate()
        let before = store.durability.syncCount
        _ = try await store.appendLogs(["a device's log line"], merchants: [:], remoteAddress: nil, maxBytes: 1 << 20)
        #expect(store.durability.syncCount > before)
        await store.close()
    }
}
