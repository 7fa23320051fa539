import Foundation
import Synchronization
import Testing
import WalletOrdersModel
import WalletOrdersPostgres
import WalletOrdersSQLite
import WalletOrdersStore
import WalletOrdersTesting

/// What must hold when many writers and readers meet: on PostgreSQL they commit in any order, from any instance.
@Suite(.timeLimit(.minutes(5))) struct ConcurrentStoreTests {
    let type = Writes.type
    let start = Writes.start

    /// Writers update orders concurrently while a device keeps asking what changed since its last tag and
    /// "fetches" (reads the version of) each order listed. Once the writers are done and the device has asked
    /// once more, it must hold the last version of every order: a tag that ran ahead of a write committed later
    /// would leave that write unseen for good.
    @Test(arguments: StoreEngine.allCases)
    func aDeviceFollowingTheListingNeverMissesAnUpdate(engine: StoreEngine) async throws {
        let folder = try TemporaryDirectory("concurrent")
        let (store, location) = try await TestStore.make(engine, in: folder)
        defer { Task { await store.close() } }
        let orders = (0..<8).map { "C-\($0)" }
        for id in orders {
            _ = try await store.createOrder(Writes.order(id))
            _ = try await store.at(start).register(
                device: "watcher",
                type: type,
                id: id,
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
        }
        // Writers on connections of their own, as other instances of the service would be.
        var writers: [any OrderStore] = []
        for _ in 0..<4 { writers.append(try await Self.open(engine, location)) }
        let updatesPerWriter = engine == .postgres ? 150 : 60
        let device = FollowingDevice()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for round in 0..<updatesPerWriter {
                        let id = orders[(index * 2 + round) % orders.count]
                        // Retry on a lost race, as the service does.
                        while true {
                            do {
                                try await writer.update(id, at: self.start.addingTimeInterval(Double(round)))
                                break
                            } catch StoreError.versionConflict {
                                continue
                            }
                        }
                    }
                }
            }
            group.addTask {
                while !device.done.load(ordering: .acquiring) {
                    try await device.follow(store)
                }
                // One last look after every writer finished.
                try await device.follow(store)
            }
            // Let the writers finish, then stop the device.
            for _ in 0..<writers.count { try await group.next() }
            device.done.store(true, ordering: .releasing)
            try await group.waitForAll()
        }
        for writer in writers { await writer.close() }
        #expect(device.listings.load(ordering: .relaxed) > 10, "the device listed while writes happened")
        for id in orders {
            let final = try #require(try await store.order(type: type, id: id)).version
            #expect(device.version(of: id) == final, "order \(id): the device saw a version that is not the last")
        }
    }

    /// A device that lists what changed since its tag and reads the current version of each order listed.
    final class FollowingDevice: Sendable {
        let done = Atomic<Bool>(false)
        let listings = Atomic<Int>(0)
        private let state = Mutex<(tag: Int64?, seen: [String: Int])>((nil, [:]))

        func follow(_ store: any OrderStore) async throws {
            let tag = state.withLock { $0.tag }
            listings.add(1, ordering: .relaxed)
            guard let changed = try await store.changedOrders(device: "watcher", type: Writes.type, since: tag) else { return }
            for id in changed.orderIdentifiers {
                let version = try await store.order(type: Writes.type, id: id)?.version ?? 0
                state.withLock { $0.seen[id] = max($0.seen[id] ?? 0, version) }
            }
            state.withLock { $0.tag = changed.lastModified }
        }

        func version(of id: String) -> Int? { state.withLock { $0.seen[id] } }
    }

    private static func open(_ engine: StoreEngine, _ location: String) async throws -> any OrderStore {
        switch engine {
        case .sqlite: try SQLiteStore(path: location)
        case .postgres: await PostgresStore(url: try PostgresURL(location), connections: 2, logger: .init(label: "writer"))
        }
    }

    @Test func twoInstancesMigratingAnEmptyPostgresDatabaseAtOnceApplyEachMigrationOnce() async throws {
        let url = try await PostgresURL(try TestStore.emptyPostgresDatabase())
        let first = await PostgresStore(url: url, connections: 2, logger: .init(label: "first"))
        let second = await PostgresStore(url: url, connections: 2, logger: .init(label: "second"))
        async let a = first.migrate()
        async let b = second.migrate()
        let (appliedByFirst, appliedBySecond) = try await (a, b)
        #expect(appliedByFirst.isEmpty != appliedBySecond.isEmpty, "one instance applied them, the other found none left")
        #expect(Set(appliedByFirst + appliedBySecond).count == appliedByFirst.count + appliedBySecond.count)
        #expect(try await first.pendingMigrations().isEmpty)
        await first.close()
        await second.close()
    }

    @Test func theSQLiteFileIsInWALModeAndRecordsItsMigrations() async throws {
        let folder = try TemporaryDirectory("sqlite")
        let path = folder.path("orders.sqlite")
        let store = try SQLiteStore(path: path)
        let applied = try await store.migrate()
        #expect(
            applied == [
                "0001_initial", "0002_order_versions", "0003_claims_and_history", "0004_bounded_device_logs",
                "0005_fewer_pages_per_write", "0006_merchants", "0007_order_links", "0008_webhooks",
                "0009_partners_and_tracking", "0010_console", "0011_bounded_tracking_events",
                "0012_version_history_bytes", "0013_shop_connections", "0014_stalled_parcels",
            ]
        )
        await store.close()
        let tables = try await Command.run(
            "python3",
            [
                "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(db.execute("PRAGMA journal_mode").fetchone()[0])
                print(",".join(r[0] for r in db.execute("SELECT identifier FROM grdb_migrations")))
                print(db.execute("SELECT count(*) FROM sqlite_stat1").fetchone()[0] >= 0)
                """, path,
            ]
        )
        let recorded: [String] = ["wal", applied.joined(separator: ","), "True"]
        #expect(tables.output.split(separator: "\n").map(String.init) == recorded)
    }

    @Test func aPostgresURLIsReadWithoutShowingItsPassword() throws {
        let url = try PostgresURL("postgresql://shop:s3cr%40t@db.example.com:6432/orders?sslmode=require")
        #expect(url.host == "db.example.com" && url.port == 6432 && url.username == "shop" && url.database == "orders")
        #expect(url.sslMode == "require")
        #expect(url.description == "postgres://shop@db.example.com:6432/orders")
        let socket = try PostgresURL("postgres://shop@/orders?host=/run/postgresql")
        #expect(socket.socketPath == "/run/postgresql/.s.PGSQL.5432")
        for bad in ["postgres://db.example.com/orders", "postgres://shop@db.example.com/", "postgres://a@b/c?sslmode=maybe"] {
            #expect(throws: PostgresURLError.self) { try PostgresURL(bad) }
        }
        do {
            _ = try PostgresURL("postgres://shop:hunter2@db.example.com/")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
        }
    }
}
