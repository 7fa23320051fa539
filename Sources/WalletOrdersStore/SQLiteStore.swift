import Foundation
import GRDB
import WalletOrdersMigrations
import WalletOrdersModel

/// Orders, registrations, device logs and the push outbox in one SQLite file.
///
/// WAL mode with a busy timeout and foreign keys on: one writer at a time, readers alongside it. Every write
/// that belongs together (an order's new version, its package and its pushes) is one transaction.
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (creating if needed) the database at `path`. Call `migrate()` before use.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.foreignKeysEnabled = true
        configuration.label = "wallet-orders"
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        pool = try DatabasePool(path: path, configuration: configuration)
        self.path = path
    }

    /// Applies the migrations not yet applied, in order, and returns their names.
    @discardableResult
    public func migrate() throws -> [String] {
        let migrator = try Self.migrator()
        let pending = try pendingMigrations(migrator)
        try migrator.migrate(pool)
        return pending
    }

    /// The migrations not yet applied, in order.
    public func pendingMigrations() throws -> [String] {
        try pendingMigrations(Self.migrator())
    }

    private func pendingMigrations(_ migrator: DatabaseMigrator) throws -> [String] {
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        return migrator.migrations.filter { !applied.contains($0) }
    }

    private static func migrator() throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in try Migrations.all() {
            migrator.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
        }
        return migrator
    }

    /// Checks that the file can be written: rewrites the schema's user version, unchanged, in a transaction.
    public func checkWritable() throws {
        try pool.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
    }

    /// Whether the database answers a query.
    public func isReachable() async -> Bool {
        (try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    // MARK: Orders

    /// Stores a new order with its assets and package, all or nothing.
    ///
    /// `createdAt` and `updatedAt` are set to `now` (whole seconds) before `package` builds the signed package;
    /// whatever `package` throws (an invalid order, say) leaves nothing written.
    public func createOrder(
        _ document: OrderDocument,
        authenticationToken: String,
        assets: [String: Data],
        now: Date,
        package: @escaping @Sendable (OrderDocument, [String: Data]) throws -> Data
    ) async throws -> StoredOrder {
        guard let type = document.orderTypeIdentifier, let id = document.orderIdentifier else {
            throw StoreError.missingIdentifiers
        }
        return try await pool.write { db in
            let exists = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM orders WHERE order_type_identifier = ? AND order_identifier = ?)
                """, arguments: [type, id]) ?? false
            if exists { throw StoreError.orderExists }
            let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
            var stamped = document
            stamped["createdAt"] = .string(RFC3339.format(Date(timeIntervalSince1970: Double(seconds))))
            stamped["updatedAt"] = stamped["createdAt"]
            let packageData = try package(stamped, assets)
            let tag = try Self.nextChangeTag(db)
            try db.execute(sql: """
                INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                    created_at, updated_at, change_tag, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)
                """, arguments: [type, id, authenticationToken, Self.text(stamped), Self.status(stamped),
                                 seconds, seconds, tag])
            try Self.replaceAssets(db, type: type, id: id, assets: assets)
            try Self.savePackage(db, type: type, id: id, version: 1, data: packageData)
            return StoredOrder(
                orderTypeIdentifier: type, orderIdentifier: id, authenticationToken: authenticationToken,
                document: stamped, status: Self.status(stamped), createdAt: Date(timeIntervalSince1970: Double(seconds)),
                updatedAt: Date(timeIntervalSince1970: Double(seconds)), changeTag: tag, version: 1)
        }
    }

    /// Writes a new version of an order: `change` turns the current document and assets into the new ones,
    /// the store moves `updatedAt` forward, `package` builds the signed package, and one push per registered
    /// device is queued, all in one transaction. Returns the new version and how many pushes were queued.
    public func updateOrder(
        type: String,
        id: String,
        now: Date,
        change: @escaping @Sendable (OrderDocument, [String: Data]) throws -> (OrderDocument, [String: Data]),
        package: @escaping @Sendable (OrderDocument, [String: Data]) throws -> Data
    ) async throws -> (order: StoredOrder, pushesQueued: Int) {
        try await pool.write { db in
            guard let current = try Self.fetchOrder(db, type: type, id: id) else { throw StoreError.orderNotFound }
            let currentAssets = try Self.fetchAssets(db, type: type, id: id)
            var (document, assets) = try change(current.document, currentAssets)
            // Each version's updatedAt is at least one second past the last: HTTP dates have one-second
            // resolution, so a device comparing If-Modified-Since must never see two versions in one second.
            let previous = Int64(current.updatedAt.timeIntervalSince1970)
            let seconds = max(Int64(now.timeIntervalSince1970.rounded(.down)), previous + 1)
            let updatedAt = Date(timeIntervalSince1970: Double(seconds))
            document["updatedAt"] = .string(RFC3339.format(updatedAt))
            let packageData = try package(document, assets)
            let tag = try Self.nextChangeTag(db)
            let version = current.version + 1
            try db.execute(sql: """
                UPDATE orders SET document = ?, status = ?, updated_at = ?, change_tag = ?, version = ?
                WHERE order_type_identifier = ? AND order_identifier = ?
                """, arguments: [Self.text(document), Self.status(document), seconds, tag, version, type, id])
            if assets != currentAssets { try Self.replaceAssets(db, type: type, id: id, assets: assets) }
            try Self.savePackage(db, type: type, id: id, version: version, data: packageData)
            // Due now, by the clock: `seconds` may run ahead of it to keep updatedAt increasing.
            let queued = try Self.queuePushes(db, type: type, id: id, now: Int64(now.timeIntervalSince1970))
            let order = StoredOrder(
                orderTypeIdentifier: type, orderIdentifier: id, authenticationToken: current.authenticationToken,
                document: document, status: Self.status(document), createdAt: current.createdAt,
                updatedAt: updatedAt, changeTag: tag, version: version)
            return (order, queued)
        }
    }

    /// The order, or nil when there is none.
    public func order(type: String, id: String) async throws -> StoredOrder? {
        try await pool.read { db in try Self.fetchOrder(db, type: type, id: id) }
    }

    /// The merchant's per-order files.
    public func assets(type: String, id: String) async throws -> [String: Data] {
        try await pool.read { db in try Self.fetchAssets(db, type: type, id: id) }
    }

    /// What answering a device about an order needs, without the document; nil when there is no such order.
    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT authentication_token, updated_at, change_tag, version FROM orders
                WHERE order_type_identifier = ? AND order_identifier = ?
                """)
            return try Row.fetchOne(statement, arguments: [type, id]).map { row in
                OrderHead(authenticationToken: row[0], updatedAt: Date(timeIntervalSince1970: Double(row[1] as Int64)),
                          changeTag: row[2], version: row[3])
            }
        }
    }

    /// What a device's fetch needs in one read: the order's head and, when stored for its current version, the
    /// signed package. Nil when there is no such order.
    public func orderForFetch(type: String, id: String) async throws -> (head: OrderHead, package: Data?)? {
        try await pool.read { db in
            // A cached statement: this is the request devices make most, and parsing SQL showed in profiles.
            let statement = try db.cachedStatement(sql: """
                SELECT o.authentication_token, o.updated_at, o.change_tag, o.version, p.data
                FROM orders o
                LEFT JOIN order_packages p ON p.order_type_identifier = o.order_type_identifier
                                          AND p.order_identifier = o.order_identifier AND p.version = o.version
                WHERE o.order_type_identifier = ? AND o.order_identifier = ?
                """)
            return try Row.fetchOne(statement, arguments: [type, id]).map { row in
                (OrderHead(authenticationToken: row[0], updatedAt: Date(timeIntervalSince1970: Double(row[1] as Int64)),
                           changeTag: row[2], version: row[3]),
                 row[4] as Data?)
            }
        }
    }

    /// The stored package of `version`, or nil when none is stored for that version.
    public func package(type: String, id: String, version: Int) async throws -> Data? {
        try await pool.read { db in
            try Data.fetchOne(db, sql: """
                SELECT data FROM order_packages
                WHERE order_type_identifier = ? AND order_identifier = ? AND version = ?
                """, arguments: [type, id, version])
        }
    }

    /// Stores the package of `version`, unless the order has moved on to a newer version meanwhile.
    public func savePackage(type: String, id: String, version: Int, data: Data) async throws {
        try await pool.write { db in
            let current = try Int.fetchOne(db, sql: """
                SELECT version FROM orders WHERE order_type_identifier = ? AND order_identifier = ?
                """, arguments: [type, id])
            guard current == version else { return }
            try Self.savePackage(db, type: type, id: id, version: version, data: data)
        }
    }

    /// Orders newest first, optionally of one type, in one status, or updated since a time, starting after `cursor`.
    public func orders(type: String? = nil, status: String? = nil, updatedSince: Date? = nil,
                       before cursor: Int64? = nil, limit: Int) async throws -> [OrderSummary] {
        let since = updatedSince.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
        return try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT o.rowid, o.order_type_identifier, o.order_identifier, o.status, o.created_at, o.updated_at,
                       o.version,
                       (SELECT COUNT(*) FROM registrations r
                        WHERE r.order_type_identifier = o.order_type_identifier
                          AND r.order_identifier = o.order_identifier)
                FROM orders o
                WHERE (?1 IS NULL OR o.order_type_identifier = ?1) AND (?2 IS NULL OR o.rowid < ?2)
                  AND (?4 IS NULL OR o.status = ?4) AND (?5 IS NULL OR o.updated_at >= ?5)
                ORDER BY o.rowid DESC LIMIT ?3
                """, arguments: [type, cursor, limit, status, since]).map { row in
                OrderSummary(
                    orderTypeIdentifier: row[1], orderIdentifier: row[2], status: row[3],
                    createdAt: Date(timeIntervalSince1970: Double(row[4] as Int64)),
                    updatedAt: Date(timeIntervalSince1970: Double(row[5] as Int64)),
                    version: row[6], registrations: row[7], cursor: row[0])
            }
        }
    }

    // MARK: Registrations

    /// Registers a device for an order's updates; an existing registration takes the new push token.
    public func register(
        device: String, type: String, id: String, pushToken: String, now: Date
    ) async throws -> RegistrationOutcome {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await pool.write { db in
            let existing = try String.fetchOne(db, sql: """
                SELECT push_token FROM registrations
                WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                """, arguments: [device, type, id])
            if let existing {
                if existing != pushToken {
                    try db.execute(sql: """
                        UPDATE registrations SET push_token = ?, updated_at = ?
                        WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                        """, arguments: [pushToken, seconds, device, type, id])
                }
                return .existing
            }
            try db.execute(sql: """
                INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                           created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [device, type, id, pushToken, seconds, seconds])
            return .created
        }
    }

    /// Removes a device's registration for an order; nothing happens when there is none.
    public func unregister(device: String, type: String, id: String) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                DELETE FROM registrations
                WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                """, arguments: [device, type, id])
        }
    }

    /// The device's orders of `type` changed after `tag` (all of them without a tag); nil when the device is
    /// registered for no order of that type.
    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT o.order_identifier, o.change_tag FROM registrations r
                JOIN orders o ON o.order_type_identifier = r.order_type_identifier
                             AND o.order_identifier = r.order_identifier
                WHERE r.device_identifier = ? AND r.order_type_identifier = ?
                ORDER BY o.change_tag
                """, arguments: [device, type])
            guard !rows.isEmpty else { return nil }
            let newest: Int64 = rows.map { $0[1] as Int64 }.max() ?? 0
            let changed = rows.filter { tag == nil || ($0[1] as Int64) > tag! }.map { $0[0] as String }
            return ChangedOrders(orderIdentifiers: changed, lastModified: newest)
        }
    }

    /// The devices registered for an order.
    public func registrations(type: String, id: String) async throws -> [Registration] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
                FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
                ORDER BY created_at, device_identifier
                """, arguments: [type, id]).map(Self.registration)
        }
    }

    // MARK: Device logs and pushes

    /// Stores messages a device sent to the log endpoint.
    public func appendLogs(_ messages: [String], remoteAddress: String?, now: Date) async throws {
        guard !messages.isEmpty else { return }
        let seconds = Int64(now.timeIntervalSince1970)
        try await pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO device_logs (received_at, remote_address, message) VALUES (?, ?, ?)
                """)
            for message in messages {
                try statement.execute(arguments: [seconds, remoteAddress, message])
            }
        }
    }

    /// Device log entries, newest first, before the entry `cursor`, optionally received since a time and
    /// containing a text (case-insensitive for ASCII).
    public func logs(since: Date? = nil, containing text: String? = nil, before cursor: Int64? = nil,
                     limit: Int) async throws -> [DeviceLogEntry] {
        let since = since.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
        return try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, received_at, remote_address, message FROM device_logs
                WHERE (?1 IS NULL OR id < ?1) AND (?3 IS NULL OR received_at >= ?3)
                  AND (?4 IS NULL OR instr(lower(message), lower(?4)) > 0)
                ORDER BY id DESC LIMIT ?2
                """, arguments: [cursor, limit, since, text]).map { row in
                DeviceLogEntry(id: row[0], receivedAt: Date(timeIntervalSince1970: Double(row[1] as Int64)),
                               remoteAddress: row[2], message: row[3])
            }
        }
    }

    /// Outbox rows, newest first, optionally of one status and of one order.
    public func pushes(
        status: String? = nil, type: String? = nil, id: String? = nil, before cursor: Int64? = nil, limit: Int
    ) async throws -> [PushRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, order_type_identifier, order_identifier, device_identifier, push_token, status, attempts,
                       next_attempt_at, last_error, created_at, updated_at
                FROM push_outbox
                WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR order_type_identifier = ?2)
                  AND (?3 IS NULL OR order_identifier = ?3) AND (?4 IS NULL OR id < ?4)
                ORDER BY id DESC LIMIT ?5
                """, arguments: [status, type, id, cursor, limit]).map(Self.push)
        }
    }

    // MARK: Rows

    private static func nextChangeTag(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE counters SET value = value + 1 WHERE name = 'order_change'")
        return try Int64.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'order_change'")!
    }

    static func queuePushes(_ db: Database, type: String, id: String, now: Int64) throws -> Int {
        // A pending push for the same order and token already covers this change: Wallet fetches the newest version.
        try db.execute(sql: """
            INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token, status,
                                     attempts, next_attempt_at, created_at, updated_at)
            SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', 0, ?3, ?3, ?3
            FROM registrations WHERE order_type_identifier = ?1 AND order_identifier = ?2
            ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending' DO NOTHING
            """, arguments: [type, id, now])
        return try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
            """, arguments: [type, id]) ?? 0
    }

    static func fetchOrder(_ db: Database, type: String, id: String) throws -> StoredOrder? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT authentication_token, document, status, created_at, updated_at, change_tag, version FROM orders
            WHERE order_type_identifier = ? AND order_identifier = ?
            """, arguments: [type, id]) else { return nil }
        let document = try OrderDocument(data: Data((row[1] as String).utf8))
        return StoredOrder(
            orderTypeIdentifier: type, orderIdentifier: id, authenticationToken: row[0], document: document,
            status: row[2], createdAt: Date(timeIntervalSince1970: Double(row[3] as Int64)),
            updatedAt: Date(timeIntervalSince1970: Double(row[4] as Int64)), changeTag: row[5], version: row[6])
    }

    static func fetchAssets(_ db: Database, type: String, id: String) throws -> [String: Data] {
        var assets: [String: Data] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT path, data FROM order_assets WHERE order_type_identifier = ? AND order_identifier = ?
            """, arguments: [type, id]) {
            assets[row[0]] = row[1]
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

    static func savePackage(_ db: Database, type: String, id: String, version: Int, data: Data) throws {
        try db.execute(sql: """
            INSERT INTO order_packages (order_type_identifier, order_identifier, version, data) VALUES (?, ?, ?, ?)
            ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE SET version = excluded.version,
                                                                               data = excluded.data
            """, arguments: [type, id, version, data])
    }

    private static func text(_ document: OrderDocument) -> String {
        String(decoding: document.json.serialized(), as: UTF8.self)
    }

    private static func status(_ document: OrderDocument) -> String {
        document["status"]?.stringValue ?? "open"
    }

    static func registration(_ row: Row) -> Registration {
        Registration(
            deviceIdentifier: row[0], orderTypeIdentifier: row[1], orderIdentifier: row[2], pushToken: row[3],
            createdAt: Date(timeIntervalSince1970: Double(row[4] as Int64)),
            updatedAt: Date(timeIntervalSince1970: Double(row[5] as Int64)))
    }

    private static func push(_ row: Row) -> PushRecord {
        PushRecord(
            id: row[0], orderTypeIdentifier: row[1], orderIdentifier: row[2], deviceIdentifier: row[3],
            pushToken: row[4], status: row[5], attempts: row[6],
            nextAttemptAt: Date(timeIntervalSince1970: Double(row[7] as Int64)), lastError: row[8],
            createdAt: Date(timeIntervalSince1970: Double(row[9] as Int64)),
            updatedAt: Date(timeIntervalSince1970: Double(row[10] as Int64)))
    }
}
