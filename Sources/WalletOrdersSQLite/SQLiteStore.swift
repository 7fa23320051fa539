import Foundation
import GRDB
import WalletOrdersMigrations
import WalletOrdersModel
import WalletOrdersStore

#if canImport(Glibc)
import Glibc
#endif

/// The store in one SQLite file: the embedded default, for one instance of the service.
///
/// WAL mode with a busy timeout and foreign keys on: one writer at a time, readers alongside it, the log synced
/// off the writer before a write is acknowledged (`WALSync`), and copied back into the database by a connection of
/// its own (`WALCheckpointer`). Writes are short: the service builds and signs a package before it asks the store
/// to commit it.
public final class SQLiteStore: OrderStore {
    let pool: DatabasePool
    let hub = StoreEventHub(complete: true)
    private let checkpointer: WALCheckpointer
    let durability: WALSync
    /// The room left on the database's filesystem.
    let disk: DiskSpaceProbe
    /// The database file.
    public let path: String
    /// This host's clock, which every instance on the same file shares (see `StoreClock`).
    public let clock: StoreClock

    public var location: String { path }
    /// One instance per host writes a SQLite file.
    public var isShared: Bool { false }

    /// Opens (creating if needed) the database at `path`, reading times from `clock`. Call `migrate()` before use.
    public init(path: String, clock: StoreClock = StoreClock()) throws {
        self.clock = clock
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.foreignKeysEnabled = true
        configuration.label = "wallet-orders"
        let checkpointer = WALCheckpointer(path: path)
        configuration.prepareDatabase { db in try checkpointer.watch(db) }
        self.checkpointer = checkpointer
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        Self.createPrivately(path)
        pool = try DatabasePool(path: path, configuration: configuration)
        durability = WALSync(databasePath: path)
        disk = DiskSpaceProbe(folder: folder.path)
        self.path = path
    }

    /// Creates the database file, empty, readable and writable by its owner alone (less if the umask says so),
    /// unless it exists: it holds every order's token and every push token, and SQLite would create it 0644. Its
    /// `-wal` and `-shm` files take the database file's mode. When the file cannot be created here, SQLite's open
    /// says why.
    private static func createPrivately(_ path: String) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Every write: a transaction of its own, on disk once this returns (see `WALSync`). When the sync fails, the
    /// write is committed but not known to be on disk, and this throws. A write the full disk refused throws
    /// `StoreError.diskFull`: SQLite rolled it back whole, and the next write on the same connection succeeds once
    /// there is room.
    func write<Result: Sendable>(_ body: @Sendable (Database) throws -> Result) async throws -> Result {
        let result: Result
        do {
            result = try await pool.write(body)
        } catch let error as DatabaseError where isDiskFull(error) {
            throw StoreError.diskFull
        }
        try await durability.sync()
        return result
    }

    /// Whether SQLite refused a write for want of room. It says `SQLITE_FULL` when a write to the log or the
    /// database file finds the disk full (or the database at `max_page_count`); growing the shared-memory index
    /// or truncating a file says `SQLITE_IOERR_…` whatever the cause, so an I/O error counts when the disk has
    /// less room than a transaction's pages would need.
    private func isDiskFull(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_FULL: true
        case .SQLITE_IOERR: (disk.current(fresh: true)?.freeBytes ?? .max) < 1 << 20
        default: false
        }
    }

    public func diskSpace() -> DiskSpace? { disk.current() }

    public func migrate() async throws -> [String] {
        let migrator = try Self.migrator()
        let pending = try await pendingMigrations(migrator)
        try migrator.migrate(pool)
        // A database never analysed, or whose tables a migration rebuilt (dropping their statistics), leaves the
        // planner guessing; once is cheap with the limit below.
        let analysed = try await pool.read { db in try db.tableExists("sqlite_stat1") }
        if !pending.isEmpty || !analysed { try await optimize() }
        return pending
    }

    public func pendingMigrations() async throws -> [String] {
        try await pendingMigrations(Self.migrator())
    }

    private func pendingMigrations(_ migrator: DatabaseMigrator) async throws -> [String] {
        let applied = try await pool.read { db in try migrator.appliedIdentifiers(db) }
        return migrator.migrations.filter { !applied.contains($0) }
    }

    private static func migrator() throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try Migrations.all(for: .sqlite) {
            migrator.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
        }
        return migrator
    }

    /// Rewrites the schema's user version, unchanged, in a transaction.
    public func checkWritable() async throws {
        try await write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
    }

    public func isReachable() async -> Bool {
        (try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// Gathers the planner's statistics again. SQLite 3.40 (Debian 12) has no `PRAGMA optimize=0x10002`, which
    /// would check every table at open, so this analyses them all, with a sampling limit that keeps it to
    /// milliseconds at a million rows.
    public func optimize() async throws {
        try await write { db in
            try db.execute(sql: "PRAGMA analysis_limit = 1000")
            try db.execute(sql: "ANALYZE")
        }
    }

    /// This host's clock: the processes sharing an SQLite file share the host, and read the same clock.
    public func time() async throws -> Date { Date() }

    public func close() async {
        hub.close()
        await checkpointer.close()
        // `DatabasePool.close` blocks until every reader is given back, and a read in flight finishes on GRDB's
        // queues, which run on Dispatch's global threads, as Swift's tasks do: on a two-core machine two stores
        // closing at once from tasks held both threads, and the reads they waited for never ran. It blocks a
        // thread of its own instead.
        let pool = self.pool
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                try? pool.close()
                closed.resume()
            }
        }
    }

    public func events() -> AsyncStream<StoreEvent> { hub.subscribe() }
}
