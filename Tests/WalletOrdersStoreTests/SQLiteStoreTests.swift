import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

@Suite struct SQLiteStoreTests {
    struct PackagingFailed: Error {}

    private func store() throws -> (SQLiteStore, TemporaryDirectory) {
        let folder = try TemporaryDirectory("store")
        let store = try SQLiteStore(path: folder.path("nested/orders.sqlite"))
        try store.migrate()
        return (store, folder)
    }

    private let start = Date(timeIntervalSince1970: 1_795_342_530)

    @Test func migrationsApplyOnceAndAreRecorded() throws {
        let folder = try TemporaryDirectory("store")
        let path = folder.path("orders.sqlite")
        #expect(try SQLiteStore(path: path).migrate() == ["0001_initial", "0002_order_versions"])
        #expect(try SQLiteStore(path: path).migrate() == [])
        let tables = try Command.run("python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA journal_mode").fetchone()[0])
            print(",".join(r[0] for r in db.execute("SELECT identifier FROM grdb_migrations")))
            print(",".join(sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'"))))
            """, path])
        let lines = tables.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "wal")
        #expect(lines.dropFirst().first == "0001_initial,0002_order_versions")
        #expect(lines.last?.contains("orders,push_outbox,registrations") == true)
    }

    @Test func aFailedPackageLeavesNothingWritten() async throws {
        let (store, _) = try store()
        await #expect(throws: PackagingFailed.self) {
            try await store.createOrder(SampleOrder.document(), authenticationToken: "t", assets: [:], now: start) { _, _ in
                throw PackagingFailed()
            }
        }
        #expect(try await store.order(type: DevelopmentKeys.orderType, id: "A-1001") == nil)
        _ = try await store.createOrder(SampleOrder.document(), authenticationToken: "t", assets: ["a.png": Data([1])],
                                        now: start) { _, _ in Data("package".utf8) }
        await #expect(throws: PackagingFailed.self) {
            try await store.updateOrder(type: DevelopmentKeys.orderType, id: "A-1001", now: start, change: { order, _ in
                var order = order
                order["status"] = .string("completed")
                return (order, [:])
            }, package: { _, _ in throw PackagingFailed() })
        }
        let stored = try await store.order(type: DevelopmentKeys.orderType, id: "A-1001")
        #expect(stored?.version == 1)
        #expect(stored?.status == "open")
        #expect(try await store.assets(type: DevelopmentKeys.orderType, id: "A-1001") == ["a.png": Data([1])])
        #expect(try await store.package(type: DevelopmentKeys.orderType, id: "A-1001", version: 1) == Data("package".utf8))
    }

    @Test func everyVersionGetsANewerChangeTagAndALaterSecond() async throws {
        let (store, _) = try store()
        let created = try await store.createOrder(SampleOrder.document(), authenticationToken: "t", assets: [:], now: start) { _, _ in Data() }
        var tags = [created.changeTag]
        var times = [created.updatedAt]
        for clock in [start, start, start.addingTimeInterval(-86_400)] {
            let (order, _) = try await store.updateOrder(
                type: DevelopmentKeys.orderType, id: "A-1001", now: clock,
                change: { order, assets in (order, assets) }, package: { _, _ in Data() })
            tags.append(order.changeTag)
            times.append(order.updatedAt)
            #expect(order.document.updatedAt == order.updatedAt)
        }
        #expect(tags == tags.sorted() && Set(tags).count == tags.count)
        #expect(times.map { $0.timeIntervalSince1970 } == [0, 1, 2, 3].map { start.timeIntervalSince1970 + $0 })
    }

    @Test func pendingPushesCollapsePerOrderAndToken() async throws {
        let (store, _) = try store()
        _ = try await store.createOrder(SampleOrder.document(), authenticationToken: "t", assets: [:], now: start) { _, _ in Data() }
        #expect(try await store.register(device: "d1", type: DevelopmentKeys.orderType, id: "A-1001", pushToken: "aa", now: start) == .created)
        #expect(try await store.register(device: "d2", type: DevelopmentKeys.orderType, id: "A-1001", pushToken: "bb", now: start) == .created)
        for _ in 0..<3 {
            let (_, queued) = try await store.updateOrder(
                type: DevelopmentKeys.orderType, id: "A-1001", now: start,
                change: { order, assets in (order, assets) }, package: { _, _ in Data() })
            #expect(queued == 2)
        }
        let pending = try await store.pushes(status: "pending", limit: 10)
        #expect(pending.map(\.pushToken).sorted() == ["aa", "bb"])
    }
}
