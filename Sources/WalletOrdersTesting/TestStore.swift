import Foundation
import Logging
import WalletOrdersPostgres
import WalletOrdersSQLite
import WalletOrdersStore

/// The store engines, for tests that run against each.
public enum StoreEngine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

/// Fresh, migrated stores for tests: a new SQLite file, or a new database in the shared throwaway PostgreSQL.
public enum TestStore {
    /// A fresh store of `engine` reading times from `clock`, with where it lives (an SQLite path or a
    /// `postgres://` URL). SQLite files go in `folder`. Close the store when done.
    public static func make(
        _ engine: StoreEngine,
        in folder: TemporaryDirectory,
        clock: StoreClock = StoreClock()
    ) async throws
        -> (store: any OrderStore, location: String)
    {
        switch engine {
        case .sqlite:
            let path = folder.path("data/orders.sqlite")
            let store = try SQLiteStore(path: path, clock: clock)
            _ = try await store.migrate()
            return (store, path)
        case .postgres:
            let url = try await postgresDatabase()
            return (await PostgresStore(url: try PostgresURL(url), connections: 4, logger: quietLogger, clock: clock), url)
        }
    }

    /// The store at `location` (from `make`) opened again, as a restarted service would, reading times from `clock`.
    public static func reopen(
        _ engine: StoreEngine,
        at location: String,
        clock: StoreClock = StoreClock()
    ) async throws -> any OrderStore {
        switch engine {
        case .sqlite: try SQLiteStore(path: location, clock: clock)
        case .postgres:
            await PostgresStore(url: try PostgresURL(location), connections: 4, logger: quietLogger, clock: clock)
        }
    }

    /// The store at `location`, an SQLite path or a `postgres://` URL, migrated: for the tools that seed one (the
    /// benchmarks).
    public static func open(_ location: String, logger: Logger) async throws -> any OrderStore {
        let store: any OrderStore =
            PostgresURL.isPostgres(location)
            ? await PostgresStore(url: try PostgresURL(location), connections: 4, logger: logger)
            : try SQLiteStore(path: location)
        _ = try await store.migrate()
        return store
    }

    /// Runs `body` with a fresh store of `engine`, and closes it afterwards.
    public static func with<Result>(
        _ engine: StoreEngine,
        _ body: (any OrderStore) async throws -> Result
    ) async throws -> Result {
        let folder = try TemporaryDirectory("store")
        let (store, _) = try await make(engine, in: folder)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// A new database in the shared cluster, already migrated: a copy of a template migrated once per process.
    public static func postgresDatabase() async throws -> String {
        let cluster = try await PostgresCluster.shared
        try await template.prepare(cluster)
        return try await cluster.createDatabase(template: Template.name)
    }

    /// An empty database in the shared cluster, with no migrations applied.
    public static func emptyPostgresDatabase() async throws -> String {
        try await PostgresCluster.shared.createDatabase()
    }

    static let quietLogger: Logger = {
        var logger = Logger(label: "test-store")
        logger.logLevel = .critical
        return logger
    }()

    private static let template = Template()

    /// The migrated database every test database is copied from.
    private actor Template {
        static let name = "wallet_orders_template"
        /// The one preparation every caller waits for (an actor may be re-entered while it awaits).
        private var preparation: Task<Void, any Error>?

        func prepare(_ cluster: PostgresCluster) async throws {
            if preparation == nil {
                preparation = Task {
                    _ = try await cluster.createDatabase(named: Self.name)
                    let store = await PostgresStore(
                        url: try PostgresURL(cluster.url(database: Self.name)),
                        connections: 1,
                        logger: TestStore.quietLogger
                    )
                    do {
                        _ = try await store.migrate()
                        await store.close()
                    } catch {
                        await store.close()
                        throw error
                    }
                    // PostgreSQL copies a database only while no session is connected to it, and each backend ends
                    // a moment after its client goes: the copies wait for the last one, and no connection may open
                    // on the template from now on. Under a CPU hog, `close()` once returned with the probe's and a
                    // pool connection still open a minute later (Tests/stress.sh, 2026-11-27): sessions left after
                    // ten seconds are ended here, and printed, so that the copies never depend on it.
                    try await cluster.psql("ALTER DATABASE \"\(Self.name)\" WITH ALLOW_CONNECTIONS false")
                    do {
                        try await cluster.waitForNoSessions(of: Self.name, seconds: 10)
                    } catch {
                        print("wallet-orders tests: \(error); ending them")
                        try await cluster.psql(
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(Self.name)'"
                        )
                        try await cluster.waitForNoSessions(of: Self.name)
                    }
                }
            }
            try await preparation?.value
        }
    }
}
