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
    let client: PooledClient
    let logger: Logger
    let hub = StoreEventHub(complete: false)
    let url: PostgresURL
    /// The database server's clock, carried forward between readings (see `StoreClock`).
    public let clock: StoreClock
    private let running: Task<Void, Never>
    private let probing: Task<Void, Never>
    private let watching: Task<Void, Never>
    /// The task that listens for other instances' notifications, started by the first subscriber.
    private let listening = Mutex<Task<Void, Never>?>(nil)
    /// Where the last claims left off in the outbox's order of due pushes (see `claimDuePushes`).
    let claimCursor = Mutex(OutboxCursor())

    /// The channel instances notify each other on.
    static let channel = "wallet_orders"

    public var location: String { url.description }
    /// Several instances write one PostgreSQL database; each hears the others' writes through `NOTIFY`.
    public var isShared: Bool { true }

    /// Connects to the database at `url` with up to `connections` connections for queries (and one more to
    /// listen for other instances once someone subscribes to `events()`), reading times from `clock`. Call
    /// `migrate()` before use and `close()` when done.
    public init(url: PostgresURL, connections: Int = 20, logger: Logger, clock: StoreClock = StoreClock()) async {
        self.url = url
        self.clock = clock
        self.logger = logger
        let pool = PostgresClient(
            configuration: url.clientConfiguration(connections: connections + 1),
            backgroundLogger: logger
        )
        let probe = DatabaseProbe()
        let client = PooledClient(pool: pool, probe: probe)
        self.client = client
        // Queries wait for run() to have started (PostgresNIO warns otherwise): the task says so just before it
        // calls run(), which marks the client running before it first suspends.
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        running = Task {
            starting.finish()
            await pool.run()
        }
        let configuration = try? url.connectionConfiguration()
        probing = Task {
            guard let configuration else { return }
            await probe.run(configuration: configuration, watch: client.watch, logger: logger)
        }
        watching = Task {
            await client.watch.run { reason in
                logger.warning("gave up a database call, answered as the database being out of reach", metadata: ["reason": "\(reason)"])
                probe.lookSoon()
            }
        }
        for await _ in started {}
    }

    public func close() async {
        if let task = listening.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        probing.cancel()
        await probing.value
        watching.cancel()
        await watching.value
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
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)
                """,
                logger: self.logger
            )
            let applied = Set(try await self.strings(connection, "SELECT name FROM schema_migrations"))
            var names: [String] = []
            for migration in migrations where !applied.contains(migration.name) {
                for statement in SQLScript.statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query(
                    """
                    INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(Date().unixSeconds))
                    """,
                    logger: self.logger
                )
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
        let connection = try await PostgresConnection.connect(
            configuration: url.connectionConfiguration(),
            id: 0,
            logger: logger
        )
        try await connection.close()
    }

    public func checkWritable() async throws {
        _ = try await transaction { connection in
            try await connection.query("CREATE TEMPORARY TABLE write_check (x integer) ON COMMIT DROP", logger: self.logger)
            try await connection.query("INSERT INTO write_check VALUES (1)", logger: self.logger)
        }
    }

    public func isReachable() async -> Bool {
        // Known at once while the probe finds the database down; otherwise asked.
        (try? await first(Int.self, "SELECT 1")) == 1
    }

    public func time() async throws -> Date {
        // clock_timestamp(), not now(): now() is the time the transaction began.
        guard let seconds = try await first(Double.self, "SELECT extract(epoch FROM clock_timestamp())::float8") else {
            throw StoreError.unexpected("the database did not say what time it is")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Autovacuum keeps PostgreSQL's statistics; a manual ANALYZE helps only after bulk loads.
    public func optimize() async throws {
        try await client.query("ANALYZE", logger: logger)
    }
}
