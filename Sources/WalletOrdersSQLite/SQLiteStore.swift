import Foundation
import GRDB
import WalletOrdersMigrations
import WalletOrdersModel
import WalletOrdersStore

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
        pool = try DatabasePool(path: path, configuration: configuration)
        durability = WALSync(databasePath: path)
        self.path = path
    }

    /// Every write: a transaction of its own, on disk once this returns (see `WALSync`). When the sync fails, the
    /// write is committed but not known to be on disk, and this throws.
    func write<Result: Sendable>(_ body: @Sendable (Database) throws -> Result) async throws -> Result {
        let result = try await pool.write(body)
        try await durability.sync()
        return result
    }

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

    public func close() async {
        hub.close()
        await checkpointer.close()
        try? pool.close()
    }

    public func events() -> AsyncStream<StoreEvent> { hub.subscribe() }

    // MARK: Orders

    public func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        let type = order.orderTypeIdentifier, id = order.orderIdentifier
        let document = Self.text(order.document)
        let stored = try await write { db in
            let tag = try Self.nextChangeTag(db)
            try db.cachedStatement(sql: """
                INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                    created_at, updated_at, change_tag, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
                ON CONFLICT (order_type_identifier, order_identifier) DO NOTHING
                """).execute(arguments: [type, id, order.authenticationToken, document, order.status.rawValue,
                                 order.createdAt.unixSeconds, order.updatedAt.unixSeconds, tag])
            guard db.changesCount == 1 else { throw StoreError.orderExists }
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
        let type = order.orderTypeIdentifier, id = order.orderIdentifier
        let version = expectedVersion + 1
        // Serialized before taking the writer: registrations and every other write wait while it is held.
        let document = Self.text(order.document)
        let update = try await write { db in
            let tag = try Self.nextChangeTag(db)
            // Cached statements on the write paths devices and merchants hit most: compiling SQL showed in profiles.
            try db.cachedStatement(sql: """
                UPDATE orders SET document = ?, status = ?, updated_at = ?, change_tag = ?, version = ?
                WHERE order_type_identifier = ? AND order_identifier = ? AND version = ?
                """).execute(arguments: [document, order.status.rawValue, order.updatedAt.unixSeconds, tag,
                                         version, type, id, expectedVersion])
            guard db.changesCount == 1 else {
                let exists = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM orders WHERE order_type_identifier = ? AND order_identifier = ?)
                    """, arguments: [type, id]) ?? false
                throw exists ? StoreError.versionConflict : StoreError.orderNotFound
            }
            try Self.recordVersion(db, order, version: version)
            if let assets = order.assets { try Self.replaceAssets(db, type: type, id: id, assets: assets) }
            try Self.storePackage(db, type: type, id: id, version: version, data: order.package)
            let queued = try Self.queuePushes(db, type: type, id: id, now: now)
            let createdAt = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT created_at FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                """), arguments: [type, id]) ?? order.createdAt.unixSeconds
            let stored = StoredOrder(committed: order, changeTag: tag, version: version, createdAt: createdAt)
            return OrderUpdate(order: stored, pushesQueued: queued)
        }
        hub.publish(.orderChanged(type: type, id: id, version: version))
        if update.pushesQueued > 0 { hub.publish(.pushesQueued) }
        return update
    }

    public func order(type: String, id: String) async throws -> StoredOrder? {
        try await pool.read { db in try Self.fetchOrderRow(db, type: type, id: id) }?.order(type: type, id: id)
    }

    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT authentication_token, updated_at, change_tag, version FROM orders
                WHERE order_type_identifier = ? AND order_identifier = ?
                """)
            return try Row.fetchOne(statement, arguments: [type, id]).map(Self.head)
        }
    }

    public func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        try await pool.read { db in
            // A cached statement: this is the request devices make most, and parsing SQL showed in profiles.
            let statement = try db.cachedStatement(sql: """
                SELECT o.authentication_token, o.updated_at, o.change_tag, o.version, p.data AS package
                FROM orders o
                LEFT JOIN order_packages p ON p.order_type_identifier = o.order_type_identifier
                                          AND p.order_identifier = o.order_identifier AND p.version = o.version
                WHERE o.order_type_identifier = ? AND o.order_identifier = ?
                """)
            return try Row.fetchOne(statement, arguments: [type, id]).map { row in
                FetchedOrder(head: Self.head(row), package: row["package"])
            }
        }
    }

    public func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        try await write { db in
            let current = try Int.fetchOne(db, sql: """
                SELECT version FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                """, arguments: [type, id])
            guard current == version else { return false }
            try Self.storePackage(db, type: type, id: id, version: version, data: data)
            return true
        }
    }

    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT o.rowid AS cursor, o.order_type_identifier, o.order_identifier, o.status, o.created_at,
                       o.updated_at, o.version,
                       (SELECT COUNT(*) FROM registrations r
                        WHERE r.order_type_identifier = o.order_type_identifier
                          AND r.order_identifier = o.order_identifier) AS registrations
                FROM orders o
                WHERE (?1 IS NULL OR o.order_type_identifier = ?1) AND (?2 IS NULL OR o.rowid < ?2)
                  AND (?4 IS NULL OR o.status = ?4) AND (?5 IS NULL OR o.updated_at >= ?5)
                ORDER BY o.rowid DESC LIMIT ?3
                """, arguments: [filter.type, page.before, page.limit + 1, filter.status?.rawValue,
                                 filter.updatedSince?.unixSeconds])
            return Page(rows: rows.map { row in
                (row["cursor"], OrderSummary(
                    orderTypeIdentifier: row["order_type_identifier"], orderIdentifier: row["order_identifier"],
                    status: Self.status(row["status"]), createdAt: Date(unixSeconds: row["created_at"]),
                    updatedAt: Date(unixSeconds: row["updated_at"]), version: row["version"],
                    registrations: row["registrations"]))
            }, limit: page.limit)
        }
    }

    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT version, status, updated_at FROM order_versions
                WHERE order_type_identifier = ? AND order_identifier = ? ORDER BY version
                """, arguments: [type, id]).map { row in
                OrderVersion(version: row["version"], status: Self.status(row["status"]),
                             updatedAt: Date(unixSeconds: row["updated_at"]))
            }
        }
    }

    // MARK: Registrations

    public func register(device: String, type: String, id: String, pushToken: String, now: Date) async throws
        -> RegistrationOutcome {
        try await write { db in
            let existing = try String.fetchOne(db.cachedStatement(sql: """
                SELECT push_token FROM registrations
                WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                """), arguments: [device, type, id])
            if let existing {
                if existing != pushToken {
                    try db.execute(sql: """
                        UPDATE registrations SET push_token = ?, updated_at = ?
                        WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                        """, arguments: [pushToken, now.unixSeconds, device, type, id])
                }
                return .existing
            }
            try db.cachedStatement(sql: """
                INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                           created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [device, type, id, pushToken, now.unixSeconds, now.unixSeconds])
            return .created
        }
    }

    public func unregister(device: String, type: String, id: String) async throws {
        try await write { db in
            try db.execute(sql: """
                DELETE FROM registrations
                WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                """, arguments: [device, type, id])
        }
    }

    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        try await pool.read { db in
            // CROSS JOIN fixes the join order in SQLite: the device's registrations by their key, then each order
            // by its key. Nothing then depends on the planner's statistics; a plan that walked the order type
            // instead answered in seconds at a million orders.
            let statement = try db.cachedStatement(sql: """
                SELECT o.order_identifier, o.change_tag
                FROM registrations r
                CROSS JOIN orders o ON o.order_type_identifier = r.order_type_identifier
                                   AND o.order_identifier = r.order_identifier
                WHERE r.device_identifier = ? AND r.order_type_identifier = ?
                """)
            let rows = try Row.fetchAll(statement, arguments: [device, type])
            guard !rows.isEmpty else { return nil }
            let tagged: [(id: String, tag: Int64)] = rows.map { ($0["order_identifier"], $0["change_tag"]) }
            // One writer: a tag is visible once taken, so the newest tag is safe to hand out.
            let newest = tagged.map(\.tag).max() ?? 0
            let changed = tagged.filter { tag == nil || $0.tag > tag! }.sorted { $0.tag < $1.tag }.map(\.id)
            return ChangedOrders(orderIdentifiers: changed, lastModified: newest)
        }
    }

    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
                FROM registrations
                WHERE (?1 IS NULL OR device_identifier = ?1) AND (?2 IS NULL OR order_type_identifier = ?2)
                  AND (?3 IS NULL OR order_identifier = ?3)
                ORDER BY updated_at DESC, device_identifier LIMIT ?4
                """, arguments: [filter.device, filter.type, filter.id, max(1, limit)]).map(Self.registration)
        }
    }

    public func registrationCount(type: String, id: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
                """, arguments: [type, id]) ?? 0
        }
    }

    public func resendPushes(type: String, id: String, now: Date) async throws -> Int? {
        let queued = try await write { db -> Int? in
            guard try Self.fetchOrderRow(db, type: type, id: id) != nil else { return nil }
            return try Self.queuePushes(db, type: type, id: id, now: now)
        }
        if let queued, queued > 0 { hub.publish(.pushesQueued) }
        return queued
    }

    public func pruneFailedRegistrations() async throws -> Int {
        try await write { db in
            try db.execute(sql: """
                DELETE FROM registrations AS r
                WHERE EXISTS (
                    SELECT 1 FROM push_outbox AS f
                    WHERE f.status = 'failed' AND f.order_type_identifier = r.order_type_identifier
                      AND f.order_identifier = r.order_identifier AND f.push_token = r.push_token
                      AND NOT EXISTS (
                          SELECT 1 FROM push_outbox AS d
                          WHERE d.status IN ('delivered', 'pending', 'sending') AND d.id > f.id
                            AND d.order_type_identifier = f.order_type_identifier
                            AND d.order_identifier = f.order_identifier AND d.push_token = f.push_token))
                """)
            return db.changesCount
        }
    }

    // MARK: Device logs

    public func appendLogs(_ messages: [String], remoteAddress: String?, now: Date, maxBytes: Int) async throws
        -> DeviceLogAppend {
        guard !messages.isEmpty else { return DeviceLogAppend() }
        return try await write { db in
            var outcome = DeviceLogAppend()
            var added = 0
            let fold = try db.cachedStatement(sql: """
                UPDATE device_logs SET count = count + ?, last_seen_at = ?, remote_address = ?
                WHERE message_hash = ? AND message = ?
                """)
            let insert = try db.cachedStatement(sql: """
                INSERT INTO device_logs (received_at, last_seen_at, remote_address, message, message_hash, count, size)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for (message, count) in DeviceLogBatch(messages).counted {
                let hash = DeviceLogEntry.digest(of: message)
                try fold.execute(arguments: [count, now.unixSeconds, remoteAddress, hash, message])
                if db.changesCount > 0 {
                    outcome.folded += count
                    continue
                }
                let size = DeviceLogEntry.storedSize(of: message)
                try insert.execute(arguments: [now.unixSeconds, now.unixSeconds, remoteAddress, message, hash, count, size])
                outcome.stored += 1
                outcome.folded += count - 1
                added += size
            }
            var total = try Self.addLogBytes(db, added)
            // The entries last seen longest ago go first, a batch at a time, until the total fits.
            while total > maxBytes {
                let oldest = try Row.fetchAll(db, sql: """
                    SELECT id, size FROM device_logs ORDER BY last_seen_at, id LIMIT 256
                    """)
                guard !oldest.isEmpty else { break }
                var freed = 0
                var ids: [Int64] = []
                for row in oldest where total - freed > maxBytes {
                    ids.append(row["id"])
                    freed += row["size"] as Int
                }
                let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                try db.execute(sql: "DELETE FROM device_logs WHERE id IN (\(placeholders))",
                               arguments: StatementArguments(ids))
                outcome.evicted += ids.count
                total = try Self.addLogBytes(db, -freed)
            }
            return outcome
        }
    }

    /// Moves the device log's byte counter by `bytes`; answers the new total.
    private static func addLogBytes(_ db: Database, _ bytes: Int) throws -> Int {
        try Int.fetchOne(db, sql: """
            UPDATE counters SET value = value + ? WHERE name = 'device_log_bytes' RETURNING value
            """, arguments: [bytes]) ?? 0
    }

    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, received_at, last_seen_at, remote_address, message, count FROM device_logs
                WHERE (?1 IS NULL OR id < ?1) AND (?3 IS NULL OR last_seen_at >= ?3)
                  AND (?4 IS NULL OR instr(lower(message), lower(?4)) > 0)
                ORDER BY id DESC LIMIT ?2
                """, arguments: [page.before, page.limit + 1, filter.since?.unixSeconds, filter.containing])
            return Page(rows: rows.map { row in
                (row["id"], DeviceLogEntry(id: row["id"], receivedAt: Date(unixSeconds: row["received_at"]),
                                           remoteAddress: row["remote_address"], message: row["message"],
                                           count: row["count"], lastSeenAt: Date(unixSeconds: row["last_seen_at"])))
            }, limit: page.limit)
        }
    }

    public func logBytes() async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'device_log_bytes'") ?? 0
        }
    }

    public func pruneLogs(before date: Date) async throws -> Int {
        try await write { db in
            let sizes = try Int.fetchAll(db, sql: "DELETE FROM device_logs WHERE last_seen_at < ? RETURNING size",
                                         arguments: [date.unixSeconds])
            _ = try Self.addLogBytes(db, -sizes.reduce(0, +))
            return sizes.count
        }
    }

    // MARK: Rows

    private static func nextChangeTag(_ db: Database) throws -> Int64 {
        guard let tag = try Int64.fetchOne(db.cachedStatement(sql: """
            UPDATE counters SET value = value + 1 WHERE name = 'order_change' RETURNING value
            """)) else { throw StoreError.unexpected("the order_change counter is missing") }
        return tag
    }

    /// One pending push per device registered for the order; answers how many devices that is.
    static func queuePushes(_ db: Database, type: String, id: String, now: Date) throws -> Int {
        // A pending push for the same order and token already covers this change: Wallet fetches the newest version.
        try db.cachedStatement(sql: """
            INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token, status,
                                     attempts, next_attempt_at, created_at, updated_at)
            SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', 0, ?3, ?3, ?3
            FROM registrations WHERE order_type_identifier = ?1 AND order_identifier = ?2
            ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending' DO NOTHING
            """).execute(arguments: [type, id, now.unixSeconds])
        return try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
            """), arguments: [type, id]) ?? 0
    }

    static func recordVersion(_ db: Database, _ order: OrderWrite, version: Int) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
            VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [order.orderTypeIdentifier, order.orderIdentifier, version, order.status.rawValue,
                             order.updatedAt.unixSeconds])
    }

    /// An order's row as stored, its document not parsed yet.
    struct OrderRow: Sendable {
        let authenticationToken: String
        let document: String
        let status: String
        let createdAt: Int64
        let updatedAt: Int64
        let changeTag: Int64
        let version: Int

        func order(type: String, id: String) throws -> StoredOrder {
            StoredOrder(
                orderTypeIdentifier: type, orderIdentifier: id, authenticationToken: authenticationToken,
                document: try OrderDocument(data: Data(document.utf8)), status: SQLiteStore.status(status),
                createdAt: Date(unixSeconds: createdAt), updatedAt: Date(unixSeconds: updatedAt), changeTag: changeTag,
                version: version)
        }
    }

    static func fetchOrderRow(_ db: Database, type: String, id: String) throws -> OrderRow? {
        let statement = try db.cachedStatement(sql: """
            SELECT authentication_token, document, status, created_at, updated_at, change_tag, version FROM orders
            WHERE order_type_identifier = ? AND order_identifier = ?
            """)
        return try Row.fetchOne(statement, arguments: [type, id]).map { row in
            OrderRow(authenticationToken: row["authentication_token"], document: row["document"], status: row["status"],
                     createdAt: row["created_at"], updatedAt: row["updated_at"], changeTag: row["change_tag"],
                     version: row["version"])
        }
    }

    static func fetchAssets(_ db: Database, type: String, id: String) throws -> [String: Data] {
        var assets: [String: Data] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT path, data FROM order_assets WHERE order_type_identifier = ? AND order_identifier = ?
            """), arguments: [type, id]) {
            assets[row["path"]] = row["data"]
        }
        return assets
    }

    private static func replaceAssets(_ db: Database, type: String, id: String, assets: [String: Data]) throws {
        try db.execute(sql: "DELETE FROM order_assets WHERE order_type_identifier = ? AND order_identifier = ?",
                       arguments: [type, id])
        for (path, data) in assets {
            try db.execute(sql: """
                INSERT INTO order_assets (order_type_identifier, order_identifier, path, data) VALUES (?, ?, ?, ?)
                """, arguments: [type, id, path, data])
        }
    }

    static func storePackage(_ db: Database, type: String, id: String, version: Int, data: Data) throws {
        try db.cachedStatement(sql: """
            INSERT INTO order_packages (order_type_identifier, order_identifier, version, data) VALUES (?, ?, ?, ?)
            ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE SET version = excluded.version,
                                                                               data = excluded.data
            """).execute(arguments: [type, id, version, data])
    }

    static func text(_ document: OrderDocument) -> String {
        String(decoding: document.json.serialized(), as: UTF8.self)
    }

    static func status(_ text: String) -> Order.Status {
        Order.Status(rawValue: text) ?? .open
    }

    static func head(_ row: Row) -> OrderHead {
        OrderHead(authenticationToken: row["authentication_token"], updatedAt: Date(unixSeconds: row["updated_at"]),
                  changeTag: row["change_tag"], version: row["version"])
    }

    static func registration(_ row: Row) -> Registration {
        Registration(
            deviceIdentifier: row["device_identifier"], orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"], pushToken: row["push_token"],
            createdAt: Date(unixSeconds: row["created_at"]), updatedAt: Date(unixSeconds: row["updated_at"]))
    }
}
