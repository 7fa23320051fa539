import Foundation
import GRDB
import Testing
import WalletOrdersTesting

@testable import WalletOrdersSQLite

/// Checkpoints off the writer: the log is copied into the database by the checkpointer's own connection, and the
/// log stays bounded even when no checkpoint can keep up.
@Suite(.timeLimit(.minutes(5))) struct WALCheckpointerTests {
    /// A database in WAL mode whose connection never checkpoints on its own, watched by `checkpointer`.
    static func database(at path: String, watchedBy checkpointer: WALCheckpointer) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try checkpointer.watch(db)
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in try db.execute(sql: "CREATE TABLE pages (data BLOB NOT NULL)") }
        return queue
    }

    /// Appends `transactions` transactions of `rows` rows, each row filling most of a 4 KiB page.
    static func write(_ queue: DatabaseQueue, transactions: Int, rows: Int) throws {
        for _ in 0..<transactions {
            try queue.write { db in
                for _ in 0..<rows {
                    try db.execute(sql: "INSERT INTO pages (data) VALUES (randomblob(3500))")
                }
            }
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func theLogIsCopiedIntoTheDatabaseByTheCheckpointersConnection() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("checkpoint.sqlite")
        let checkpointer = WALCheckpointer(path: path)
        let queue = try Self.database(at: path, watchedBy: checkpointer)
        let before = Self.size(path)
        // Past the threshold: the writing connection only asks; nothing else would ever copy the log back.
        try Self.write(queue, transactions: 12, rows: 100)
        let pages = 1_200 * 4096
        let deadline = ContinuousClock.now + .seconds(20)
        while Self.size(path) < before + pages, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(Self.size(path) >= before + pages)
        #expect(try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pages") } == 1_200)
        await checkpointer.close()
        try queue.close()
    }

    @Test func pastTheLimitTheWriterCheckpointsItselfSoTheLogStaysBounded() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("bounded.sqlite")
        let checkpointer = WALCheckpointer(path: path)
        // No checkpointer at work: only the writer's own checkpoint at the limit can start the log again.
        await checkpointer.close()
        let queue = try Self.database(at: path, watchedBy: checkpointer)
        // Without that checkpoint the log would hold every page written: a quarter more than the bound below.
        let transactions = Int(WALCheckpointer.limit) / 100 + 40
        try Self.write(queue, transactions: transactions, rows: 100)
        // The log holds at most the limit and the transaction that crossed it (each frame: a header and a page).
        let bound = 32 + (Int(WALCheckpointer.limit) + 200) * (24 + 4096)
        #expect(Self.size(path + "-wal") <= bound)
        #expect(try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pages") } == transactions * 100)
        try queue.close()
    }
}
