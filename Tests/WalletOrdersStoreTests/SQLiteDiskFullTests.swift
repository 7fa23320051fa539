import Foundation
import GRDB
import Testing
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersSQLite

/// A full disk, as the SQLite store meets it: SQLite's own cap on the file's pages (`max_page_count`) stands in for
/// the disk, since SQLite answers both with `SQLITE_FULL` (DiskFullTests fills a real filesystem).
@Suite(.timeLimit(.minutes(5))) struct SQLiteDiskFullTests {
    @Test func aWriteTheFullDiskRefusesIsDiskFullAndTheSameConnectionWritesOnceThereIsRoom() async throws {
        let folder = try TemporaryDirectory("sqlite-full")
        let (made, path) = try await TestStore.make(.sqlite, in: folder)
        let store = try #require(made as? SQLiteStore)
        _ = try await store.createOrder(Writes.order())
        _ = try await store.at(Writes.start).register(
            device: "phone",
            type: Writes.type,
            id: "A-1001",
            pushToken: "aa",
            maxDevices: nil,
            firstDevice: .addedToWallet
        )
        let pages = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
        try await store.pool.write { db in try db.execute(sql: "PRAGMA max_page_count = \(pages)") }

        let image = Data(count: 256 << 10)
        await #expect(throws: StoreError.diskFull) {
            try await store.update(at: Writes.start + 1, package: "v2", assets: ["photo.png": image])
        }
        // Nothing of the refused write, and reads go on.
        #expect(try await store.order(type: Writes.type, id: "A-1001")?.version == 1)
        #expect(try await store.currentPackage() == "v1")
        #expect(try await store.registrationCount(type: Writes.type, id: "A-1001") == 1)

        try await store.pool.write { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        let update = try await store.update(at: Writes.start + 1, package: "v2", assets: ["photo.png": image])
        #expect(update.order.version == 2 && update.pushesQueued == 1)
        #expect(try await store.currentPackage() == "v2")
        await store.close()

        let check = try await Command.run("sqlite3", [path, "PRAGMA integrity_check"])
        #expect(check.output == "ok\n", "\(check.output)\(check.error)")
    }

    @Test func diskSpaceIsTheRoomOnTheFilesystemHoldingTheDatabase() async throws {
        let folder = try TemporaryDirectory("sqlite-space")
        let (made, path) = try await TestStore.make(.sqlite, in: folder)
        let store = try #require(made as? SQLiteStore)
        defer { Task { await store.close() } }
        let space = try #require(store.diskSpace())
        #expect(space.folder == URL(fileURLWithPath: path).deletingLastPathComponent().path)
        #expect(space.freeBytes > 0 && space.freeBytes <= space.totalBytes)
    }
}

@Suite(.timeLimit(.minutes(5))) struct RetryPauseTests {
    @Test func pausesDoubleFromHalfASecondUpToTheLongestAndStartAgainAfterASuccess() {
        var pause = RetryPause(longest: .seconds(5))
        let pauses = (0..<6).map { _ in pause.failed() }
        #expect(pauses == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        pause.succeeded()
        #expect(pause.failed() == .milliseconds(500))
    }
}
