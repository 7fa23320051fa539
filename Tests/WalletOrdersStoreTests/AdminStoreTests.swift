import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// The store's admin side: version history, searches, counts, re-sends, pruning and rebuilding packages.
@Suite struct AdminStoreTests {
    let start = Date(timeIntervalSince1970: 1_795_342_530)
    let type = DevelopmentKeys.orderType

    func storeWithAnOrder() async throws -> (SQLiteStore, TemporaryDirectory) {
        let folder = try TemporaryDirectory("admin-store")
        let store = try SQLiteStore(path: folder.path("orders.sqlite"))
        try store.migrate()
        _ = try await store.createOrder(SampleOrder.document(), authenticationToken: "t", assets: [:], now: start) { _, _ in
            Data("v1".utf8)
        }
        for (device, token) in [("d1", "aa01"), ("d2", "bb02")] {
            _ = try await store.register(device: device, type: type, id: "A-1001", pushToken: token, now: start)
        }
        return (store, folder)
    }

    func update(_ store: SQLiteStore, to status: String, at date: Date) async throws {
        _ = try await store.updateOrder(type: type, id: "A-1001", now: date, change: { order, _ in
            var order = order
            order["status"] = .string(status)
            return (order, [:])
        }, package: { _, _ in Data(status.utf8) })
    }

    @Test func everyVersionIsRecordedWithItsTimeAndStatus() async throws {
        let (store, _) = try await storeWithAnOrder()
        try await update(store, to: "completed", at: start.addingTimeInterval(60))
        try await update(store, to: "cancelled", at: start.addingTimeInterval(120))
        let versions = try await store.versions(type: type, id: "A-1001")
        #expect(versions.map(\.version) == [1, 2, 3])
        #expect(versions.map(\.status) == ["open", "completed", "cancelled"])
        #expect(versions.map(\.updatedAt) == [start, start.addingTimeInterval(60), start.addingTimeInterval(120)])
        #expect(try await store.orders(status: "cancelled", limit: 10).map(\.orderIdentifier) == ["A-1001"])
        #expect(try await store.orders(status: "open", limit: 10).isEmpty)
        #expect(try await store.orders(updatedSince: start.addingTimeInterval(121), limit: 10).isEmpty)
    }

    @Test func failedPushesPruneTheirRegistrationsAndDeliveredOnesDoNot() async throws {
        let (store, _) = try await storeWithAnOrder()
        try await update(store, to: "completed", at: start.addingTimeInterval(60))
        let jobs = try await store.claimDuePushes(now: start.addingTimeInterval(61), limit: 10, types: [type])
        #expect(jobs.count == 2)
        try await store.finishPushes(jobs.map { ($0, $0.deviceIdentifier == "d1" ? .failed(reason: "gave up") : .delivered) },
                                     now: start.addingTimeInterval(62))
        let stats = try await store.stats(now: start.addingTimeInterval(120))
        #expect(stats.pushesLastHour == ["delivered": 1, "failed": 1])
        #expect(stats.registrations == 2 && stats.devices == 2 && stats.outboxDepth == 0)

        #expect(try await store.pruneFailedRegistrations() == 1)
        #expect(try await store.registrations(type: type, id: "A-1001").map(\.deviceIdentifier) == ["d2"])
        #expect(try await store.pruneFailedRegistrations() == 0)

        #expect(try await store.resendPushes(type: type, id: "A-1001", now: start.addingTimeInterval(200)) == 1)
        #expect(try await store.resendPushes(type: type, id: "no-such-order", now: start) == nil)
        #expect(try await store.stats(now: start.addingTimeInterval(200)).outboxDepth == 1)
    }

    @Test func logsAreSearchedAndPrunedByAge() async throws {
        let (store, _) = try await storeWithAnOrder()
        try await store.appendLogs(["old: Request failed"], remoteAddress: "10.0.0.1", now: start)
        try await store.appendLogs(["new: all good"], remoteAddress: "10.0.0.2", now: start.addingTimeInterval(3 * 86_400))
        #expect(try await store.logs(containing: "REQUEST", limit: 10).map(\.message) == ["old: Request failed"])
        #expect(try await store.logs(since: start.addingTimeInterval(86_400), limit: 10).map(\.message) == ["new: all good"])
        #expect(try await store.pruneLogs(before: start.addingTimeInterval(86_400)) == 1)
        #expect(try await store.logs(limit: 10).map(\.message) == ["new: all good"])
    }

    @Test func packagesAreRebuiltForTheCurrentVersionOfTypesThatCanBuild() async throws {
        let (store, _) = try await storeWithAnOrder()
        try await update(store, to: "completed", at: start.addingTimeInterval(60))
        let rebuilt = try await store.rebuildPackages { type, order, _ in
            type == DevelopmentKeys.orderType ? Data("re-signed \(order["status"]?.stringValue ?? "")".utf8) : nil
        }
        #expect(rebuilt == 1)
        #expect(try await store.package(type: type, id: "A-1001", version: 2) == Data("re-signed completed".utf8))
        #expect(try await store.rebuildPackages { _, _, _ in nil } == 0)
    }
}
