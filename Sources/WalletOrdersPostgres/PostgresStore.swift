import Foundation
import Logging
import PostgresNIO
import Synchronization
import WalletOrdersMigrations
import WalletOrdersModel
import WalletOrdersStore

/// The store in PostgreSQL, for several instances of the service sharing one database.
///
/// What differs from SQLite, where many writers commit at once: listing tags are the writing transaction's id,
/// capped by the oldest transaction still running (so a tag never runs ahead of a write not yet visible);
/// pushes are claimed with `FOR UPDATE SKIP LOCKED`; every instance hears of queued pushes and new versions
/// through `LISTEN`/`NOTIFY` on the channel `wallet_orders`.
public final class PostgresStore: OrderStore {
    let client: PostgresClient
    let logger: Logger
    let hub = StoreEventHub(complete: false)
    let url: PostgresURL
    private let running: Task<Void, Never>
    /// The task that listens for other instances' notifications, started by the first subscriber.
    private let listening = Mutex<Task<Void, Never>?>(nil)

    /// The channel instances notify each other on.
    static let channel = "wallet_orders"

    public var location: String { url.description }

    /// Connects to the database at `url` with up to `connections` connections for queries (and one more to
    /// listen for other instances once someone subscribes to `events()`). Call `migrate()` before use and
    /// `close()` when done.
    public init(url: PostgresURL, connections: Int = 20, logger: Logger) async {
        self.url = url
        self.logger = logger
        let client = PostgresClient(configuration: url.clientConfiguration(connections: connections + 1),
                                    backgroundLogger: logger)
        self.client = client
        // Queries wait for run() to have started (PostgresNIO warns otherwise): the task says so just before it
        // calls run(), which marks the client running before it first suspends.
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        running = Task {
            starting.finish()
            await client.run()
        }
        for await _ in started {}
    }

    public func close() async {
        if let task = listening.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        running.cancel()
        await running.value
        hub.close()
    }

    public func events() -> AsyncStream<StoreEvent> {
        let stream = hub.subscribe()
        listening.withLock { task in
            if task == nil {
                task = Task { [client, hub, logger] in await Self.listen(client: client, hub: hub, logger: logger) }
            }
        }
        return stream
    }

    // MARK: Migrations

    public func migrate() async throws -> [String] {
        let migrations = try Migrations.all(for: .postgres)
        return try await transaction { connection in
            // Two instances starting at once: the second waits here, then finds nothing left to apply.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: self.logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)
                """, logger: self.logger)
            let applied = Set(try await self.strings(connection, "SELECT name FROM schema_migrations"))
            var names: [String] = []
            for migration in migrations where !applied.contains(migration.name) {
                for statement in SQLScript.statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query("""
                    INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(Date().unixSeconds))
                    """, logger: self.logger)
                names.append(migration.name)
            }
            return names
        }
    }

    /// The advisory lock migrations hold: any constant no other application uses.
    static let migrationLock: Int64 = 0x57_4F_5F_4D_49_47  // "WO_MIG"

    public func pendingMigrations() async throws -> [String] {
        let names = try Migrations.all(for: .postgres).map(\.name)
        let exists = try await first(Bool.self, "SELECT to_regclass('schema_migrations') IS NOT NULL") ?? false
        guard exists else { return names }
        let applied = Set(try await client.withConnection { try await self.strings($0, "SELECT name FROM schema_migrations") })
        return names.filter { !applied.contains($0) }
    }

    /// Opens one connection to `url` and closes it: throws PostgreSQL's reason at once (nothing listens, the
    /// password or the database is wrong), where a store's pool keeps trying to connect while its queries wait.
    public static func connectOnce(_ url: PostgresURL, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 0,
                                                              logger: logger)
        try await connection.close()
    }

    public func checkWritable() async throws {
        _ = try await transaction { connection in
            try await connection.query("CREATE TEMPORARY TABLE write_check (x integer) ON COMMIT DROP", logger: self.logger)
            try await connection.query("INSERT INTO write_check VALUES (1)", logger: self.logger)
        }
    }

    public func isReachable() async -> Bool {
        (try? await first(Int.self, "SELECT 1")) == 1
    }

    /// Autovacuum keeps PostgreSQL's statistics; a manual ANALYZE helps only after bulk loads.
    public func optimize() async throws {
        try await client.query("ANALYZE", logger: logger)
    }

    // MARK: Orders

    public func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        let type = order.orderTypeIdentifier, id = order.orderIdentifier
        let statement = CreateOrderStatement(order: order, document: Self.text(order.document))
        let create = { (connection: PostgresConnection) async throws -> Int64 in
            guard let tag = try await self.rows(statement, on: connection).first else { throw StoreError.orderExists }
            return tag
        }
        // A new order has no files to remove: without any to add, the statement runs alone.
        let files = order.assets?.isEmpty == false ? order.assets : nil
        let tag = try await run(create, replacingFilesOf: order, with: files)
        hub.publish(.orderChanged(type: type, id: id, version: 1))
        return StoredOrder(committed: order, changeTag: tag, version: 1)
    }

    public func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        let rows = try await rows(CurrentOrderStatement(type: type, id: id))
        guard let row = rows.first else { return nil }
        var assets: [String: Data] = [:]
        for file in rows { if let path = file.path, let data = file.data { assets[path] = data } }
        return CurrentOrder(order: try row.order.order(type: type, id: id), assets: assets)
    }

    public func updateOrder(_ order: OrderWrite, expectedVersion: Int, now: Date) async throws -> OrderUpdate {
        let type = order.orderTypeIdentifier, id = order.orderIdentifier
        let version = expectedVersion + 1
        let statement = CommitVersionStatement(order: order, document: Self.text(order.document),
                                               expectedVersion: expectedVersion, now: now.unixSeconds)
        let commit = { (connection: PostgresConnection) async throws -> CommitVersionStatement.Row in
            guard let row = try await self.rows(statement, on: connection).first else {
                let exists = try await connection.query("""
                    SELECT 1 FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                    """, logger: self.logger).collect()
                throw exists.isEmpty ? StoreError.orderNotFound : StoreError.versionConflict
            }
            return row
        }
        let row = try await run(commit, replacingFilesOf: order, with: order.assets)
        let stored = StoredOrder(committed: order, changeTag: row.changeTag, version: version, createdAt: row.createdAt)
        hub.publish(.orderChanged(type: type, id: id, version: version))
        if row.devices > 0 { hub.publish(.pushesQueued) }
        return OrderUpdate(order: stored, pushesQueued: row.devices)
    }

    public func order(type: String, id: String) async throws -> StoredOrder? {
        // Without the order's files: nothing that shows an order needs their bytes.
        try await rows(OrderStatement(type: type, id: id)).first?.order(type: type, id: id)
    }

    public func orderHead(type: String, id: String) async throws -> OrderHead? {
        try await rows(OrderHeadStatement(type: type, id: id)).first
    }

    public func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        try await rows(OrderForFetchStatement(type: type, id: id)).first
    }

    public func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        try await transaction { connection in
            // The order's row lock keeps a newer version from landing between the check and the write.
            let rows = try await connection.query("""
                SELECT version FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id) FOR SHARE
                """, logger: self.logger).collect()
            guard let row = rows.first, try Columns(row)["version"] as Int == version else { return false }
            try await self.storePackage(connection, type: type, id: id, version: version, data: data)
            return true
        }
    }

    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        let rows = try await client.query("""
            SELECT o.seq, o.order_type_identifier, o.order_identifier, o.status, o.created_at, o.updated_at, o.version,
                   (SELECT count(*) FROM registrations r
                    WHERE r.order_type_identifier = o.order_type_identifier
                      AND r.order_identifier = o.order_identifier)::bigint AS registrations
            FROM orders o
            WHERE (\(filter.type)::text IS NULL OR o.order_type_identifier = \(filter.type))
              AND (\(page.before)::bigint IS NULL OR o.seq < \(page.before))
              AND (\(filter.status?.rawValue)::text IS NULL OR o.status = \(filter.status?.rawValue))
              AND (\(filter.updatedSince?.unixSeconds)::bigint IS NULL OR o.updated_at >= \(filter.updatedSince?.unixSeconds))
            ORDER BY o.seq DESC LIMIT \(page.limit + 1)
            """, logger: logger).collect()
        return Page(rows: try rows.map { row in
            let columns = Columns(row)
            return (try columns["seq"], OrderSummary(
                orderTypeIdentifier: try columns["order_type_identifier"], orderIdentifier: try columns["order_identifier"],
                status: Self.status(try columns["status"]), createdAt: Date(unixSeconds: try columns["created_at"]),
                updatedAt: Date(unixSeconds: try columns["updated_at"]), version: try columns["version"],
                registrations: Int(try columns["registrations"] as Int64)))
        }, limit: page.limit)
    }

    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        try await client.query("""
            SELECT version, status, updated_at FROM order_versions
            WHERE order_type_identifier = \(type) AND order_identifier = \(id) ORDER BY version
            """, logger: logger).collect().map { row in
            let columns = Columns(row)
            return OrderVersion(version: try columns["version"], status: Self.status(try columns["status"]),
                                updatedAt: Date(unixSeconds: try columns["updated_at"]))
        }
    }

    // MARK: Registrations

    public func register(device: String, type: String, id: String, pushToken: String, now: Date) async throws
        -> RegistrationOutcome {
        // xmax is 0 on a row this statement inserted, and the updating transaction's id on one it updated.
        let rows = try await client.query("""
            INSERT INTO registrations AS r (device_identifier, order_type_identifier, order_identifier, push_token,
                                            created_at, updated_at)
            VALUES (\(device), \(type), \(id), \(pushToken), \(now.unixSeconds), \(now.unixSeconds))
            ON CONFLICT (device_identifier, order_type_identifier, order_identifier) DO UPDATE
                SET push_token = excluded.push_token,
                    updated_at = CASE WHEN r.push_token = excluded.push_token THEN r.updated_at ELSE excluded.updated_at END
            RETURNING (xmax = 0) AS inserted
            """, logger: logger).collect()
        guard let row = rows.first else { throw StoreError.unexpected("registering returned nothing") }
        return try Columns(row)["inserted"] as Bool ? .created : .existing
    }

    public func unregister(device: String, type: String, id: String) async throws {
        try await client.query("""
            DELETE FROM registrations
            WHERE device_identifier = \(device) AND order_type_identifier = \(type) AND order_identifier = \(id)
            """, logger: logger)
    }

    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        // The snapshot's xmin is the oldest transaction still running when this statement started: every write
        // by an older transaction is visible now, so a tag below it skips nothing that commits later.
        let tagged = try await rows(ChangedOrdersStatement(device: device, type: type))
        guard let horizon = tagged.first?.horizon else { return nil }
        let newest = tagged.map(\.tag).max() ?? 0
        let changed = tagged.filter { tag == nil || $0.tag > tag! }.sorted { $0.tag < $1.tag }.map(\.id)
        return ChangedOrders(orderIdentifiers: changed, lastModified: max(tag ?? 0, min(newest, horizon - 1)))
    }

    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await client.query("""
            SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
            FROM registrations
            WHERE (\(filter.device)::text IS NULL OR device_identifier = \(filter.device))
              AND (\(filter.type)::text IS NULL OR order_type_identifier = \(filter.type))
              AND (\(filter.id)::text IS NULL OR order_identifier = \(filter.id))
            ORDER BY updated_at DESC, device_identifier LIMIT \(max(1, limit))
            """, logger: logger).collect().map(Self.registration)
    }

    public func registrationCount(type: String, id: String) async throws -> Int {
        Int(try await first(Int64.self, """
            SELECT count(*) FROM registrations WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            """) ?? 0)
    }

    public func resendPushes(type: String, id: String, now: Date) async throws -> Int? {
        let queued = try await transaction { connection -> Int? in
            let exists = try await connection.query("""
                SELECT 1 FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                """, logger: self.logger).collect()
            guard !exists.isEmpty else { return nil }
            let queued = try await self.queuePushes(connection, type: type, id: id, now: now)
            if queued > 0 { try await self.notify(connection, .pushesQueued) }
            return queued
        }
        if let queued, queued > 0 { hub.publish(.pushesQueued) }
        return queued
    }

    public func pruneFailedRegistrations() async throws -> Int {
        try await count("""
            WITH gone AS (
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
                RETURNING 1)
            SELECT count(*) FROM gone
            """)
    }

    // MARK: Device logs

    public func appendLogs(_ messages: [String], remoteAddress: String?, now: Date, maxBytes: Int) async throws
        -> DeviceLogAppend {
        guard !messages.isEmpty else { return DeviceLogAppend() }
        let at = now.unixSeconds
        return try await transaction { connection in
            // The counter row first: appends from several instances take turns, so one never evicts a row
            // another has just folded into while that one waits for the counter (a deadlock).
            var total = Int(try await connection.query("""
                SELECT value FROM counters WHERE name = 'device_log_bytes' FOR UPDATE
                """, logger: self.logger).collect().first?.decode(Int64.self) ?? 0)
            // One statement for the whole request: fold what is already there, insert the rest in the order sent.
            // A request of a hundred messages is one round trip, not two hundred.
            let batch = DeviceLogBatch(messages).counted
            let texts = batch.map(\.message)
            let hashes = texts.map(DeviceLogEntry.digest(of:))
            let counts = batch.map { Int64($0.count) }
            let sizes = texts.map { Int64(DeviceLogEntry.storedSize(of: $0)) }
            let rows = try await connection.query("""
                WITH sent AS (
                    SELECT * FROM unnest(\(texts)::text[], \(hashes)::bigint[], \(counts)::bigint[], \(sizes)::bigint[])
                        WITH ORDINALITY AS s(message, hash, count, size, position)
                ), folded AS (
                    UPDATE device_logs d SET count = d.count + s.count, last_seen_at = \(at), remote_address = \(remoteAddress)
                    FROM sent s WHERE d.message_hash = s.hash AND d.message = s.message
                    RETURNING s.position, s.count
                ), inserted AS (
                    INSERT INTO device_logs (received_at, last_seen_at, remote_address, message, message_hash, count, size)
                    SELECT \(at), \(at), \(remoteAddress), s.message, s.hash, s.count, s.size FROM sent s
                    WHERE s.position NOT IN (SELECT position FROM folded)
                    ORDER BY s.position
                    RETURNING count, size
                )
                SELECT (SELECT coalesce(sum(count), 0) FROM folded)::bigint,
                       (SELECT count(*) FROM inserted)::bigint,
                       (SELECT coalesce(sum(count), 0) FROM inserted)::bigint,
                       (SELECT coalesce(sum(size), 0) FROM inserted)::bigint
                """, logger: self.logger).collect()
            guard let row = rows.first else { throw StoreError.unexpected("appending device logs answered no row") }
            let (foldedCount, storedRows, storedCount, storedSize) = try row.decode((Int64, Int64, Int64, Int64).self)
            var outcome = DeviceLogAppend()
            outcome.stored = Int(storedRows)
            outcome.folded = Int(foldedCount + storedCount - storedRows)
            let added = Int(storedSize)
            total += added
            // The entries last seen longest ago go first, a batch at a time, until the total fits.
            var freed = 0
            while total - freed > maxBytes {
                let oldest = try await connection.query("""
                    SELECT id, size FROM device_logs ORDER BY last_seen_at, id LIMIT 256
                    """, logger: self.logger).collect()
                guard !oldest.isEmpty else { break }
                var ids: [Int64] = []
                for row in oldest where total - freed > maxBytes {
                    let (id, size) = try row.decode((Int64, Int64).self)
                    ids.append(id)
                    freed += Int(size)
                }
                try await connection.query("DELETE FROM device_logs WHERE id = ANY(\(ids))", logger: self.logger)
                outcome.evicted += ids.count
            }
            try await connection.query("""
                UPDATE counters SET value = value + \(Int64(added - freed)) WHERE name = 'device_log_bytes'
                """, logger: self.logger)
            return outcome
        }
    }

    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        // strpos over lower(): a plain substring test, like SQLite's instr, with no LIKE wildcards to escape.
        let rows = try await client.query("""
            SELECT id, received_at, last_seen_at, remote_address, message, count FROM device_logs
            WHERE (\(page.before)::bigint IS NULL OR id < \(page.before))
              AND (\(filter.since?.unixSeconds)::bigint IS NULL OR last_seen_at >= \(filter.since?.unixSeconds))
              AND (\(filter.containing)::text IS NULL OR strpos(lower(message), lower(\(filter.containing))) > 0)
            ORDER BY id DESC LIMIT \(page.limit + 1)
            """, logger: logger).collect()
        return Page(rows: try rows.map { row in
            let columns = Columns(row)
            let id: Int64 = try columns["id"]
            let count: Int64 = try columns["count"]
            return (id, DeviceLogEntry(id: id, receivedAt: Date(unixSeconds: try columns["received_at"]),
                                       remoteAddress: try columns["remote_address"], message: try columns["message"],
                                       count: Int(count), lastSeenAt: Date(unixSeconds: try columns["last_seen_at"])))
        }, limit: page.limit)
    }

    public func logBytes() async throws -> Int {
        Int(try await first(Int64.self, "SELECT value FROM counters WHERE name = 'device_log_bytes'") ?? 0)
    }

    public func pruneLogs(before date: Date) async throws -> Int {
        try await transaction { connection in
            _ = try await connection.query("SELECT 1 FROM counters WHERE name = 'device_log_bytes' FOR UPDATE",
                                           logger: self.logger).collect()
            let rows = try await connection.query("""
                WITH gone AS (DELETE FROM device_logs WHERE last_seen_at < \(date.unixSeconds) RETURNING size)
                SELECT count(*), COALESCE(sum(size), 0)::bigint FROM gone
                """, logger: self.logger).collect()
            guard let row = rows.first else { return 0 }
            let (count, bytes) = try row.decode((Int64, Int64).self)
            try await connection.query("""
                UPDATE counters SET value = value - \(bytes) WHERE name = 'device_log_bytes'
                """, logger: self.logger)
            return Int(count)
        }
    }

    // MARK: Pieces of transactions

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws,
    /// with its own error rethrown (PostgresNIO's `withTransaction` wraps it).
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: self.logger)
            let result: Result
            do {
                result = try await body(connection)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
            try await connection.query("COMMIT", logger: self.logger)
            return result
        }
    }

    /// The first column of the first row, or nil when there is no row.
    func first<Value: PostgresDecodable>(_ type: Value.Type, _ query: PostgresQuery) async throws -> Value? {
        // The one column of a one-column answer.
        try await client.query(query, logger: logger).collect().first?.decode(Value.self)
    }

    /// A statement whose single row holds a count.
    func count(_ query: PostgresQuery) async throws -> Int {
        Int(try await first(Int64.self, query) ?? 0)
    }

    private func strings(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [String] {
        try await connection.query(query, logger: logger).collect().map { try Columns($0)["name"] }
    }

    /// One pending push per device registered for the order; answers how many devices that is.
    func queuePushes(_ connection: PostgresConnection, type: String, id: String, now: Date) async throws -> Int {
        // A pending push for the same order and token already covers this change: Wallet fetches the newest version.
        try await connection.query("""
            INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token, status,
                                     attempts, next_attempt_at, created_at, updated_at)
            SELECT order_type_identifier, order_identifier, device_identifier, push_token, 'pending', 0,
                   \(now.unixSeconds), \(now.unixSeconds), \(now.unixSeconds)
            FROM registrations WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending' DO NOTHING
            """, logger: logger)
        let rows = try await connection.query("""
            SELECT count(*) AS devices FROM registrations
            WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            """, logger: logger).collect()
        guard let row = rows.first else { return 0 }
        return Int(try Columns(row)["devices"] as Int64)
    }

    /// Runs `statement`, a transaction of its own, on a connection. With `files`, the order's files are replaced
    /// after it in one transaction of ours: both land, or neither (a statement that throws undoes the files too).
    private func run<Result: Sendable>(
        _ statement: (PostgresConnection) async throws -> Result, replacingFilesOf order: OrderWrite,
        with files: [String: Data]?
    ) async throws -> Result {
        guard let files else { return try await client.withConnection(statement) }
        return try await transaction { connection in
            let result = try await statement(connection)
            try await replaceAssets(connection, type: order.orderTypeIdentifier, id: order.orderIdentifier,
                                    assets: files)
            return result
        }
    }

    private func replaceAssets(_ connection: PostgresConnection, type: String, id: String,
                               assets: [String: Data]) async throws {
        try await connection.query("""
            DELETE FROM order_assets WHERE order_type_identifier = \(type) AND order_identifier = \(id)
            """, logger: logger)
        for (path, data) in assets {
            try await connection.query("""
                INSERT INTO order_assets (order_type_identifier, order_identifier, path, data)
                VALUES (\(type), \(id), \(path), \(data))
                """, logger: logger)
        }
    }

    private func storePackage(_ connection: PostgresConnection, type: String, id: String, version: Int,
                              data: Data) async throws {
        try await connection.query("""
            INSERT INTO order_packages (order_type_identifier, order_identifier, version, data)
            VALUES (\(type), \(id), \(version), \(data))
            ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE
                SET version = excluded.version, data = excluded.data
            """, logger: logger)
    }

    static func text(_ document: OrderDocument) -> String {
        String(decoding: document.json.serialized(), as: UTF8.self)
    }

    static func status(_ text: String) -> Order.Status {
        Order.Status(rawValue: text) ?? .open
    }

    static func head(_ columns: Columns) throws -> OrderHead {
        OrderHead(authenticationToken: try columns["authentication_token"],
                  updatedAt: Date(unixSeconds: try columns["updated_at"]), changeTag: try columns["change_tag"],
                  version: try columns["version"])
    }

    static func registration(_ row: PostgresRow) throws -> Registration {
        let columns = Columns(row)
        return Registration(
            deviceIdentifier: try columns["device_identifier"], orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"], pushToken: try columns["push_token"],
            createdAt: Date(unixSeconds: try columns["created_at"]), updatedAt: Date(unixSeconds: try columns["updated_at"]))
    }
}
