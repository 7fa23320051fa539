import Foundation
import NIOCore
import Synchronization
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// The fetch cache on its own: bounded by bytes, guarded by versions and tickets, off while events may be lost.
@Suite(.timeLimit(.minutes(5))) struct FetchCacheTests {
    static func head(_ version: Int) -> OrderHead {
        OrderHead(
            authenticationToken: "token",
            updatedAt: Date(unixSeconds: 1_800_000_000 + Int64(version)),
            changeTag: Int64(version),
            version: version
        )
    }

    /// A package of one byte.
    static func package(_ byte: UInt8) -> ByteBuffer {
        ByteBuffer(bytes: [byte])
    }

    static func live(capacity: Int = 1 << 20) -> FetchCache {
        let cache = FetchCache(capacity: capacity)
        cache.apply(.resync)
        return cache
    }

    @Test func itHoldsNothingUntilTheStoreSaysItsEventsAreComplete() {
        let cache = FetchCache(capacity: 1 << 20)
        #expect(cache.ticket() == nil)
        #expect(!cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: cache.ticket()))
        cache.apply(.resync)
        #expect(cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: cache.ticket()))
        #expect(cache.entry(type: "t", id: "a")?.package == Self.package(1))
        cache.apply(.interrupted)
        #expect(cache.entry(type: "t", id: "a") == nil)
        #expect(cache.ticket() == nil)
        cache.apply(.resync)
        #expect(cache.entry(type: "t", id: "a") == nil, "what it held before the interruption is gone")
    }

    @Test func aReadFromBeforeAnAnnouncedVersionIsNotKept() {
        let cache = Self.live()
        let ticket = cache.ticket()
        // The store read version 1; meanwhile version 2 was committed and announced.
        cache.apply(.orderChanged(type: "t", id: "a", version: 2))
        #expect(!cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: ticket))
        #expect(cache.entry(type: "t", id: "a") == nil)
        #expect(cache.fill(type: "t", id: "a", head: Self.head(2), package: Self.package(2), ticket: ticket))
        #expect(cache.entry(type: "t", id: "a")?.head.version == 2)
        // An older read arriving after the newer one changes nothing.
        #expect(!cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: cache.ticket()))
        cache.apply(.orderChanged(type: "t", id: "a", version: 3))
        #expect(cache.entry(type: "t", id: "a") == nil)
    }

    @Test func aWrittenVersionReplacesOlderOnesEvenWithoutATicket() {
        let cache = Self.live()
        #expect(cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: cache.ticket()))
        cache.written(type: "t", id: "a", head: Self.head(2), package: Self.package(2), ticket: nil)
        #expect(cache.entry(type: "t", id: "a") == nil)
        let ticket = cache.ticket()
        #expect(!cache.fill(type: "t", id: "a", head: Self.head(1), package: Self.package(1), ticket: ticket))
        cache.written(type: "t", id: "a", head: Self.head(3), package: Self.package(3), ticket: ticket)
        #expect(cache.entry(type: "t", id: "a")?.head.version == 3)
    }

    @Test func itStaysWithinItsBytesDroppingTheLeastRecentlyUsed() throws {
        let package = ByteBuffer(repeating: 7, count: 10_000)
        let cache = Self.live(capacity: 35_000)
        for id in ["a", "b", "c"] {
            #expect(cache.fill(type: "t", id: id, head: Self.head(1), package: package, ticket: cache.ticket()))
        }
        _ = cache.entry(type: "t", id: "a")
        #expect(cache.fill(type: "t", id: "d", head: Self.head(1), package: package, ticket: cache.ticket()))
        #expect(cache.entry(type: "t", id: "b") == nil, "b was used least recently")
        #expect(cache.entry(type: "t", id: "a") != nil && cache.entry(type: "t", id: "d") != nil)
        #expect(cache.usage.bytes <= 35_000 && cache.usage.entries == 3)
        // A package bigger than the whole cache is served but not kept.
        #expect(
            !cache.fill(
                type: "t",
                id: "e",
                head: Self.head(1),
                package: ByteBuffer(repeating: 0, count: 40_000),
                ticket: cache.ticket()
            )
        )
        // The evicted version stays a floor: an older read of b cannot come back.
        let stale = cache.ticket()
        #expect(!cache.fill(type: "t", id: "b", head: Self.head(0), package: package, ticket: stale))
    }

    @Test func losingFloorsRefusesTheFillsInFlight() {
        let cache = Self.live(capacity: 1 << 20)
        let ticket = cache.ticket()
        // 1,024 floors at most for this size: one more drops them all.
        for index in 0...1_024 { cache.apply(.orderChanged(type: "t", id: "o\(index)", version: 2)) }
        #expect(!cache.fill(type: "t", id: "o0", head: Self.head(1), package: Self.package(1), ticket: ticket))
        #expect(cache.fill(type: "t", id: "o0", head: Self.head(2), package: Self.package(2), ticket: cache.ticket()))
    }

    // MARK: Through the service, on real stores

    static func warmed(_ service: OrderService) async throws {
        let cache = try #require(service.cache)
        _ = await eventually { cache.usage.live }
        #expect(cache.usage.live, "the store said resync")
    }

    @Test(arguments: StoreEngine.allCases)
    func aWarmFetchReadsNoStoreAndEveryAcknowledgedUpdateIsServedAtOnce(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let reads = Tally()
            let service = try OrderServiceTests.service(
                store,
                counters: OrderService.Counters(
                    fetchReadStore: { reads.add() })
            )
            let cold = try OrderServiceTests.service(store, cacheCapacity: 0)
            try await Self.warmed(service)
            let order = try await OrderServiceTests.create(service)
            let (type, id, token) = (order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken)
            for _ in 0..<50 { #expect(try await service.fetch(type: type, id: id, token: token).head.version == 1) }
            #expect(reads.value == 0, "the created version was kept when it was written")
            await #expect(throws: OrderServiceError.self) { try await service.fetch(type: type, id: id, token: "wrong") }

            // Fetches race the updates all along: none may put an older version back.
            let stop = Tally()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while stop.value == 0 {
                            _ = try await service.fetch(type: type, id: id, token: token)
                            // A warm fetch never suspends: let the updating task have the (two-thread) pool too.
                            await Task.yield()
                        }
                    }
                }
                for version in 2...21 {
                    let written = try await service.patch(
                        type: type,
                        id: id,
                        OrderPatch(changes: ["orderNumber": .string("N-\(version)")])
                    )
                    #expect(written.order.version == version)
                    let fetched = try await service.fetchPackage(type: type, id: id, token: token)
                    #expect(fetched.head.version == version, "the acknowledged version, at once")
                    #expect(
                        try await cold.fetchPackage(type: type, id: id, token: token).package == fetched.package,
                        "the package of that version, as the store has it"
                    )
                }
                stop.add()
                try await group.waitForAll()
            }
            let before = reads.value
            for _ in 0..<50 { #expect(try await service.fetch(type: type, id: id, token: token).head.version == 21) }
            #expect(reads.value == before, "warm: no read of the store")
        }
    }

    /// Two instances on one PostgreSQL: the second updates, the first serves the new version once the
    /// notification reaches it, and never the old one after that.
    @Test func anotherInstancesUpdateReachesTheCacheThroughNotify() async throws {
        let folder = try TemporaryDirectory("instances")
        let (first, location) = try await TestStore.make(.postgres, in: folder)
        let second = try await TestStore.reopen(.postgres, at: location)
        defer {
            Task {
                await first.close()
                await second.close()
            }
        }
        let reads = Tally()
        let one = try OrderServiceTests.service(
            first,
            counters: OrderService.Counters(
                fetchReadStore: { reads.add() })
        )
        let two = try OrderServiceTests.service(second)
        try await Self.warmed(one)
        try await Self.warmed(two)
        let order = try await OrderServiceTests.create(two)
        let (type, id, token) = (order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken)
        #expect(try await one.fetch(type: type, id: id, token: token).head.version == 1)
        #expect(try await one.fetch(type: type, id: id, token: token).head.version == 1)
        #expect(reads.value == 1, "read once, then served from memory")

        var windows: [Duration] = []
        for version in 2...11 {
            #expect(
                try await two.patch(type: type, id: id, OrderPatch(changes: ["orderNumber": .string("N-\(version)")]))
                    .order.version == version
            )
            let acknowledged = ContinuousClock.now
            var served = try await one.fetch(type: type, id: id, token: token).head.version
            while served < version, ContinuousClock.now - acknowledged < .seconds(10) {
                served = try await one.fetch(type: type, id: id, token: token).head.version
            }
            windows.append(ContinuousClock.now - acknowledged)
            #expect(served == version, "the notification arrived")
            for _ in 0..<20 {
                #expect(
                    try await one.fetch(type: type, id: id, token: token).head.version == version,
                    "never the old version once the new one was served"
                )
            }
        }
        print("another instance's update served by the first after: \(windows.map { "\($0)" }.joined(separator: ", "))")
    }

    /// The listening connection dies: the cache turns off (fetches read the store) and back on when the store
    /// listens again, forgetting what it held.
    @Test func losingTheListeningConnectionTurnsTheCacheOffUntilItListensAgain() async throws {
        let folder = try TemporaryDirectory("listen")
        let (store, location) = try await TestStore.make(.postgres, in: folder)
        defer { Task { await store.close() } }
        let service = try OrderServiceTests.service(store)
        let cache = try #require(service.cache)
        try await Self.warmed(service)
        let order = try await OrderServiceTests.create(service)
        #expect(cache.entry(type: order.orderTypeIdentifier, id: order.orderIdentifier) != nil)
        let database = try #require(URLComponents(string: location)?.path.dropFirst().description)
        let killed = try await PostgresCluster.shared.psql(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = '\(database)' AND query LIKE 'LISTEN%'
            """
        )
        #expect(killed.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(killed)")
        var sawOff = false
        for _ in 0..<1_000 {
            if !cache.usage.live { sawOff = true }
            if sawOff && cache.usage.live { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(sawOff, "interrupted")
        #expect(cache.usage.live && cache.usage.entries == 0, "listening again, holding nothing from before")
    }
}

/// A count shared with closures that run anywhere.
final class Tally: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.wrappingAdd(1, ordering: .relaxed) }
}
