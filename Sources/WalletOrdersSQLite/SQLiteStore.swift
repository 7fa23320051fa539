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

    public var location: String { path }

    /// Opens (creating if needed) the database at `path`. Call `migrate()` before use.
    public init(path: String) throws {
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

    // MARK: Orders

    public func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let document = Self.text(order.document)
        let stored = try await write { db in
            let tag = try Self.nextChangeTag(db)
            try db.cachedStatement(
                sql: """
                    INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                        created_at, updated_at, change_tag, version, merchant_id, order_number)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                    ON CONFLICT (order_type_identifier, order_identifier) DO NOTHING
                    """
            ).execute(arguments: [
                type, id, order.authenticationToken, document, order.status.rawValue,
                order.createdAt.unixSeconds, order.updatedAt.unixSeconds, tag, order.merchantID, order.orderNumber,
            ])
            guard db.changesCount == 1 else { throw StoreError.orderExists }
            try Self.charge(db, order, MerchantUsage(orders: 1, assetBytes: order.assetBytes ?? 0))
            try Self.recordVersion(db, order, version: 1)
            try Self.replaceAssets(db, type: type, id: id, assets: order.assets ?? [:])
            try Self.storePackage(db, type: type, id: id, version: 1, data: order.package)
            return StoredOrder(committed: order, changeTag: tag, version: 1)
        }
        hub.publish(.orderChanged(type: type, id: id, version: 1))
        return stored
    }

    public func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        let read = try await pool.read { db -> (OrderRow, [String: Data])? in
            guard let row = try Self.fetchOrderRow(db, type: type, id: id) else { return nil }
            return (row, try Self.fetchAssets(db, type: type, id: id))
        }
        // Parsed here, off the database's queue: on the caller's executor (the service's writes run on theirs).
        guard let (row, assets) = read else { return nil }
        return CurrentOrder(order: try row.order(type: type, id: id), assets: assets)
    }

    public func updateOrder(_ order: OrderWrite, expectedVersion: Int, now: Date) async throws -> OrderUpdate {
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let version = expectedVersion + 1
        // Serialized before taking the writer: registrations and every other write wait while it is held.
        let document = Self.text(order.document)
        let update = try await write { db -> (OrderUpdate, Int) in
            let tag = try Self.nextChangeTag(db)
            // Cached statements on the write paths devices and merchants hit most: compiling SQL showed in profiles.
            try db.cachedStatement(
                sql: """
                    UPDATE orders SET document = ?, status = ?, updated_at = ?, change_tag = ?, version = ?, order_number = ?
                    WHERE order_type_identifier = ? AND order_identifier = ? AND version = ?
                    """
            ).execute(arguments: [
                document, order.status.rawValue, order.updatedAt.unixSeconds, tag,
                version, order.orderNumber, type, id, expectedVersion,
            ])
            guard db.changesCount == 1 else {
                let exists =
                    try Bool.fetchOne(
                        db,
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM orders WHERE order_type_identifier = ? AND order_identifier = ?)
                            """,
                        arguments: [type, id]
                    ) ?? false
                throw exists ? StoreError.versionConflict : StoreError.orderNotFound
            }
            try Self.recordVersion(db, order, version: version)
            var fileBytes = 0
            if let assets = order.assets {
                let before =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COALESCE(SUM(length(data)), 0) FROM order_assets
                            WHERE order_type_identifier = ? AND order_identifier = ?
                            """,
                        arguments: [type, id]
                    ) ?? 0
                fileBytes = (order.assetBytes ?? 0) - before
                try Self.replaceAssets(db, type: type, id: id, assets: assets)
            }
            try Self.charge(db, order, MerchantUsage(assetBytes: fileBytes, historyBytes: order.historyBytes))
            try Self.storePackage(db, type: type, id: id, version: version, data: order.package)
            let queued = try Self.queuePushes(db, type: type, id: id, merchant: order.merchantID, now: now)
            let webhooks = try Self.queueWebhooks(
                db,
                .orderUpdated,
                type: type,
                id: id,
                merchant: order.merchantID,
                detail: ["version": .int(Int(version)), "status": .string(order.status.rawValue)],
                now: now
            )
            let createdAt =
                try Int64.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT created_at FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                            """
                    ),
                    arguments: [type, id]
                ) ?? order.createdAt.unixSeconds
            let stored = StoredOrder(committed: order, changeTag: tag, version: version, createdAt: createdAt)
            return (OrderUpdate(order: stored, pushesQueued: queued), webhooks)
        }
        hub.publish(.orderChanged(type: type, id: id, version: version))
        if update.0.pushesQueued > 0 { hub.publish(.pushesQueued) }
        if update.1 > 0 { hub.publish(.webhooksQueued) }
        return update.0
    }

    public func order(type: String, id: String) async throws -> StoredOrder? {
        try await pool.read { db in try Self.fetchOrderRow(db, type: type, id: id) }?.order(type: type, id: id)
    }

    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT authentication_token, updated_at, change_tag, version FROM orders
                    WHERE order_type_identifier = ? AND order_identifier = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [type, id]).map(Self.head)
        }
    }

    public func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        try await pool.read { db in
            // A cached statement: this is the request devices make most, and parsing SQL showed in profiles.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT o.authentication_token, o.updated_at, o.change_tag, o.version, p.data AS package
                    FROM orders o
                    LEFT JOIN order_packages p ON p.order_type_identifier = o.order_type_identifier
                                              AND p.order_identifier = o.order_identifier AND p.version = o.version
                    WHERE o.order_type_identifier = ? AND o.order_identifier = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [type, id]).map { row in
                FetchedOrder(head: Self.head(row), package: row["package"])
            }
        }
    }

    public func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        try await write { db in
            let current = try Int.fetchOne(
                db,
                sql: """
                    SELECT version FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                    """,
                arguments: [type, id]
            )
            guard current == version else { return false }
            try Self.storePackage(db, type: type, id: id, version: version, data: data)
            return true
        }
    }

    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        // Only the filters given are in the statement (fixed fragments, every value bound), so that the planner
        // picks the index each one has.
        var conditions: [String] = []
        var arguments: StatementArguments = []
        func add(_ condition: String, _ values: StatementArguments) {
            conditions.append(condition)
            arguments += values
        }
        // A search reads the few orders its text names (a union of indexed lookups, made first) and then those
        // orders by their key; a listing walks the table in the listing's order.
        var source = "orders o"
        if let text = filter.text {
            var named = [
                "SELECT order_type_identifier AS t, order_identifier AS i FROM orders WHERE order_identifier = ?",
                "SELECT order_type_identifier, order_identifier FROM orders WHERE order_number = ?",
                "SELECT order_type_identifier, order_identifier FROM order_tracking WHERE tracking_number = ?",
                "SELECT order_type_identifier, order_identifier FROM registrations WHERE device_identifier = ?",
            ]
            arguments += [text, text, text, text]
            if let prefix = filter.pushTokenPrefix, let last = prefix.unicodeScalars.last,
                let next = Unicode.Scalar(last.value + 1)
            {
                named.append(
                    "SELECT order_type_identifier, order_identifier FROM registrations WHERE push_token >= ? AND push_token < ?"
                )
                arguments += [prefix, String(prefix.unicodeScalars.dropLast()) + String(next)]
            }
            source = """
                (\(named.joined(separator: " UNION "))) AS named
                JOIN orders o ON o.order_type_identifier = named.t AND o.order_identifier = named.i
                """
        }
        if let type = filter.type { add("o.order_type_identifier = ?", [type]) }
        if let status = filter.status { add("o.status = ?", [status.rawValue]) }
        if let since = filter.updatedSince { add("o.updated_at >= ?", [since.unixSeconds]) }
        if let merchant = filter.merchant { add("o.merchant_id = ?", [merchant]) }
        if let number = filter.orderNumber { add("o.order_number = ?", [number]) }
        if let from = filter.createdFrom { add("o.created_at >= ?", [from.unixSeconds]) }
        if let before = filter.createdBefore { add("o.created_at < ?", [before.unixSeconds]) }
        // A creation-day filter lists by creation time (its index holds the rowid too), so that a page reads the
        // range from its end and stops; its cursor row's time is read where the page goes on.
        let byCreation = filter.createdFrom != nil || filter.createdBefore != nil
        let after = filter.oldestFirst ? ">" : "<"
        if let cursor = page.before {
            if byCreation {
                add(
                    """
                    o.created_at \(after)= (SELECT created_at FROM orders WHERE rowid = ?)
                      AND (o.created_at, o.rowid) \(after) ((SELECT created_at FROM orders WHERE rowid = ?), ?)
                    """,
                    [cursor, cursor, cursor]
                )
            } else {
                add("o.rowid \(after) ?", [cursor])
            }
        }
        arguments += [page.limit + 1]
        // The page first, then its devices counted: counted in the inner statement, they would be counted for every
        // order a sort reads, not for the page's alone.
        let direction = filter.oldestFirst ? "ASC" : "DESC"
        func order(_ time: String, _ key: String) -> String {
            byCreation ? "\(time) \(direction), \(key) \(direction)" : "\(key) \(direction)"
        }
        let sql = """
            SELECT p.*, (SELECT COUNT(*) FROM registrations r
                         WHERE r.order_type_identifier = p.order_type_identifier
                           AND r.order_identifier = p.order_identifier) AS registrations
            FROM (
                SELECT o.rowid AS cursor, o.order_type_identifier, o.order_identifier, o.status, o.created_at,
                       o.updated_at, o.version, o.order_number, o.merchant_id
                FROM \(source)
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY \(order("o.created_at", "o.rowid")) LIMIT ?
            ) p
            ORDER BY \(order("p.created_at", "p.cursor"))
            """
        let bound = arguments
        return try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: bound)
            return Page(
                rows: rows.map { row in
                    (
                        row["cursor"],
                        OrderSummary(
                            orderTypeIdentifier: row["order_type_identifier"],
                            orderIdentifier: row["order_identifier"],
                            status: Self.status(row["status"]),
                            createdAt: Date(unixSeconds: row["created_at"]),
                            updatedAt: Date(unixSeconds: row["updated_at"]),
                            version: row["version"],
                            registrations: row["registrations"],
                            orderNumber: row["order_number"],
                            merchantID: row["merchant_id"]
                        )
                    )
                },
                limit: page.limit
            )
        }
    }

    public func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion> {
        try await pool.read { db in
            Page(
                rows: try Row.fetchAll(
                    db,
                    sql: """
                        SELECT version, status, updated_at, made_by, changes FROM order_versions
                        WHERE order_type_identifier = ? AND order_identifier = ? AND (? IS NULL OR version < ?)
                        ORDER BY version DESC LIMIT ?
                        """,
                    arguments: [type, id, page.before, page.before, page.limit + 1]
                ).map { row in
                    (
                        row["version"],
                        OrderVersion(
                            version: row["version"],
                            status: Self.status(row["status"]),
                            updatedAt: Date(unixSeconds: row["updated_at"]),
                            author: row["made_by"],
                            record: row["changes"]
                        )
                    )
                },
                limit: page.limit
            )
        }
    }
}
