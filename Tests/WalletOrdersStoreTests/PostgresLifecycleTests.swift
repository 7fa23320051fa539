import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTesting

/// A PostgreSQL store's lifetime: a call whose task is cancelled stops waiting, and `close()` leaves no session behind.
@Suite(.timeLimit(.minutes(5))) struct PostgresLifecycleTests {
    /// `PostgresStore.migrationLock` ("WO_MIG"), the advisory lock a migration holds.
    static let migrationLock: Int64 = 0x57_4F_5F_4D_49_47

    static let logger: Logger = {
        var logger = Logger(label: "lifecycle")
        logger.logLevel = .critical
        return logger
    }()

    /// Another session of the database, as an instance stuck in the middle of a migration would hold one.
    static func session(_ url: PostgresURL) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(host: url.host, port: url.port, username: url.username, password: nil, database: url.database, tls: .disable),
            id: 1,
            logger: logger
        )
    }

    /// A migration that waits on another session's lock waited on after its task was cancelled, for as long as the
    /// lock was held: a stopping server, or a test past its time limit, could wait forever on it.
    @Test func aMigrationWaitingOnAnotherSessionsLockReturnsOnceItsTaskIsCancelled() async throws {
        let cluster = try await PostgresCluster.shared
        let url = try PostgresURL(try await TestStore.emptyPostgresDatabase())
        let holder = try await Self.session(url)
        try await holder.query("SELECT pg_advisory_lock(\(Self.migrationLock))", logger: Self.logger)
        let store = await PostgresStore(url: url, connections: 2, logger: Self.logger)
        // Connected first (a busy machine may take seconds to), so that the migration waits on nothing but the lock.
        #expect(await eventually { (try? await store.pendingMigrations()) != nil }, "the store reaches the database")
        let finished = Atomic(false)
        let migrating = Task {
            defer { finished.store(true, ordering: .releasing) }
            return try await store.migrate()
        }
        let waitsOnTheLock = try await eventually {
            try await cluster.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(url.database)' AND wait_event_type = 'Lock'"
            ).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        #expect(waitsOnTheLock, "the migration waits on the lock")

        migrating.cancel()
        let returned = await eventually(timeout: .seconds(30)) { finished.load(ordering: .acquiring) }
        // Released either way, so that a migration that did not return (before) finishes and the test ends.
        try await holder.close()
        #expect(returned, "the cancelled migration returned while the lock was still held")
        await #expect(throws: CancellationError.self) { try await migrating.value }
        await store.close()
        try await cluster.waitForNoSessions(of: url.database)
    }

    /// Every connection a store opened (its pool's, its probe's and its listener's) is gone from the server once
    /// `close()` has returned and the server has ended their backends: a copy of the database (which PostgreSQL makes
    /// only while no session is connected to it) can then be made at once.
    @Test func aClosedStoreLeavesNoSessionAndItsDatabaseCanBeCopied() async throws {
        let cluster = try await PostgresCluster.shared
        let url = try PostgresURL(try await TestStore.postgresDatabase())
        let store = await PostgresStore(url: url, connections: 4, logger: Self.logger)
        // The listener holds a connection of its own once someone subscribes.
        let events = store.events()
        _ = events
        #expect(try await store.pendingMigrations().isEmpty)
        _ = try await store.time()
        let connected = try await eventually { try await cluster.sessions(of: url.database).count >= 2 }
        #expect(connected, "the pool and the probe or the listener are connected")

        await store.close()
        try await cluster.waitForNoSessions(of: url.database, seconds: 30)
        _ = try await cluster.createDatabase(named: "\(url.database)_copy", template: url.database)
    }
}
