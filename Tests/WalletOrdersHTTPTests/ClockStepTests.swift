import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
import WalletOrdersApplication
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// Issue 31, part 6: two instances on one store, the wall clock of one an hour behind the other's. What the
/// service writes and compares is read from the store's clock (`StoreClock`), so the instances agree: each
/// instance's store owns a clock that starts from its host's wall clock and follows the database's once read.
@Suite(.timeLimit(.minutes(5))) struct ClockStepTests {
    @Test(arguments: StoreEngine.allCases)
    func twoInstancesAnHourApartKeepUpdatedAtLastModifiedTagsAndClaimsInStep(engine: StoreEngine) async throws {
        let folder = try TemporaryDirectory("clock-step")
        let right = StoreClock()
        let behind = StoreClock(wall: { Date().addingTimeInterval(-3_600) })
        let (first, location) = try await TestStore.make(engine, in: folder, clock: right)
        let second = try await TestStore.reopen(engine, at: location, clock: behind)
        do {
            try await Self.check(engine, first, second)
            await first.close()
            await second.close()
        } catch {
            await first.close()
            await second.close()
            throw error
        }
    }

    private static func check(_ engine: StoreEngine, _ first: any OrderStore, _ second: any OrderStore) async throws {
        let (right, behind) = (first.clock, second.clock)
        #expect(behind.now() < right.now().addingTimeInterval(-3_000), "before reading the store's clock, the wall's")
        try await right.synchronize(with: first)
        try await behind.synchronize(with: second)
        #expect(abs(behind.now().timeIntervalSince(right.now())) < 5)

        try await Self.serve(first, engine) { a in
            try await Self.serve(second, engine) { b in
                let order = try await a.createOrder()
                #expect(try await b.register(order, device: "d1").status == .created)
                var tag = try #require(try await a.changed(device: "d1").json["lastModified"]?.stringValue)
                var updatedAt = Date.distantPast
                var lastModified = Date.distantPast
                var lastModifiedText = try #require(try await b.fetch(order).headers[.lastModified])
                // The instances take turns writing the order; the device asks each in turn too.
                for round in 0..<6 {
                    let (writer, other) = round.isMultiple(of: 2) ? (a, b) : (b, a)
                    let name = round.isMultiple(of: 2) ? "the instance whose clock is right" : "the one an hour behind"
                    let status = ["completed", "open"][round % 2]
                    let written = try await writer.patch(order, .object(["status": .string(status)]))
                    #expect(written.status == .ok)
                    let text = try #require(written.json["order"]?["updatedAt"]?.stringValue)
                    let new = try #require(RFC3339.parse(text))
                    #expect(new > updatedAt, "updatedAt moved forward when written by \(name)")
                    updatedAt = new

                    let changed = try await other.changed(device: "d1", since: tag)
                    #expect(changed.json["orderIdentifiers"] == .array([.string(order.id)]), "listed after \(name) wrote")
                    tag = try #require(changed.json["lastModified"]?.stringValue)
                    if engine == .sqlite {
                        #expect(try await writer.changed(device: "d1", since: tag).status == .noContent)
                    }
                    let fetched = try await other.fetch(order, headers: [.ifModifiedSince: lastModifiedText])
                    #expect(fetched.status == .ok, "a device holding the last Last-Modified is not told 304")
                    for reader in [other, writer] {
                        let text = try #require(try await reader.fetch(order).headers[.lastModified])
                        let sent = try #require(Self.httpDate(text))
                        #expect(sent >= lastModified, "Last-Modified never goes back (after \(name) wrote)")
                        (lastModified, lastModifiedText) = (sent, text)
                    }
                }

                // A write queues a push for d1: the instance behind finds it due, and the lease it takes holds
                // for the instance whose clock is right, which does not take it back.
                _ = try await a.patch(order, .object(["status": .string("completed")]))
                let claim = OutboxClaim(owner: "behind", lease: 30)
                let claimed = try await second.claimDuePushes(types: [order.type], limit: 10, claim: claim)
                #expect(claimed.count == 1, "due at once for the instance behind")
                #expect(try await first.reclaimExpiredPushClaims() == 0, "a live claim stays with its instance")
                // Left unrenewed, the claim runs out 30 seconds later for the other instance, not an hour later.
                #expect(try await first.at(right.now().addingTimeInterval(35)).reclaimExpiredPushClaims() == 1)
            }
        }
    }

    /// Runs `body` against a service on `store` (reading its clock), on a free loopback port.
    private static func serve(
        _ store: any OrderStore,
        _ engine: StoreEngine,
        _ body: @escaping @Sendable (ServiceHarness.Client) async throws -> Void
    ) async throws {
        let metrics = ServiceMetrics()
        let service = OrderService(
            store: StoreCapabilities(store),
            orderTypes: [try ServiceHarness.orderType()],
            webServiceURL: "https://orders.example.com/wallet",
            counters: metrics.serviceCounters,
            // Two SQLite stores on one file in one process are this test's arrangement, not a deployment (SQLite runs
            // one instance per host, whose clock they share): neither hears the other's writes, so neither keeps a
            // fetch cache. PostgreSQL's instances hear each other (NOTIFY) and keep theirs.
            cacheCapacity: engine == .sqlite ? 0 : OrderService.defaultCacheCapacity,
            merchantKeys: [ServiceHarness.merchantKey]
        )
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.merchantKeys = [ServiceHarness.merchantKey]
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        let app = ServiceApplication.make(service: service, metrics: metrics, configuration: configuration, logger: logger)
        try await app.test(.live) { client in try await body(ServiceHarness.Client(client: client, service: service, store: store)) }
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
