import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// The fetch decides "not modified" from the order's head, before any package work: a device answering a push that
/// another instance queued costs one store read when this instance's cache does not hold the order.
@Suite(.timeLimit(.minutes(5))) struct ConditionalFetchTests {
    @Test(arguments: StoreEngine.allCases)
    func anUnchangedOrderTheCacheDoesNotHoldAnswersNotModifiedFromOneReadWithNoPackageWork(
        engine: StoreEngine
    )
        async throws
    {
        try await TestStore.with(engine) { store in
            let writer = try OrderServiceTests.service(store)
            let order = try await OrderServiceTests.create(writer)
            let (type, id, token) = (order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken)

            // Another instance: a cold cache over the same database, counting what it reads and builds.
            let counting = CountingStore(store)
            let packageWork = Tally()
            let counters = OrderService.Counters(
                packageBuilt: { packageWork.add() },
                packageAssembled: { packageWork.add() },
                packageResigned: { packageWork.add() }
            )
            let other = try OrderServiceTests.service(store, orders: counting, counters: counters)
            let conditions: [FetchCondition] = [
                .noneMatch(changeTags: [order.changeTag], any: false),
                .noneMatch(changeTags: [order.changeTag - 1, order.changeTag], any: false),
                .noneMatch(changeTags: [], any: true),
                .modifiedSince(order.updatedAt),
                .modifiedSince(order.updatedAt.addingTimeInterval(3_600)),
            ]
            for condition in conditions {
                counting.reset()
                let result = try await other.fetch(type: type, id: id, token: token, unless: condition)
                guard case .notModified(let head) = result else {
                    Issue.record("\(condition) answered the package")
                    continue
                }
                #expect(head.version == 1 && head.changeTag == order.changeTag)
                #expect(counting.calls == ["orderForFetch": 1], "\(condition): \(counting.calls)")
            }
            #expect(packageWork.value == 0, "no package was built, assembled or signed")

            // A wrong token is refused before the condition is looked at.
            await #expect(throws: OrderServiceError.unauthorized) {
                try await other.fetch(type: type, id: id, token: "wrong", unless: .noneMatch(changeTags: [], any: true))
            }

            // Conditions the order does not meet get the package: an older tag, an earlier time.
            for condition: FetchCondition in [
                .noneMatch(changeTags: [order.changeTag - 1], any: false),
                .modifiedSince(order.updatedAt.addingTimeInterval(-1)), .none,
            ] {
                counting.reset()
                let fetched = try #require(try await other.fetch(type: type, id: id, token: token, unless: condition).fetched)
                #expect(fetched.head.version == 1)
                #expect(fetched.package.readableBytes > 1_000)
            }
            #expect(packageWork.value == 1, "assembled once from the seal; then served from the cache")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aFetchTheCacheHoldsAnswersNotModifiedWithoutReadingTheStoreUnlessOtherInstancesWriteIt(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let counting = CountingStore(store)
            let service = try OrderServiceTests.service(store, orders: counting)
            // PostgreSQL's cache turns on once its listening connection says it hears every change.
            _ = await eventually { service.cache?.usage.live == true }
            let order = try await OrderServiceTests.create(service)
            counting.reset()
            let result = try await service.fetch(
                type: order.orderTypeIdentifier,
                id: order.orderIdentifier,
                token: order.authenticationToken,
                unless: .noneMatch(changeTags: [order.changeTag], any: false)
            )
            guard case .notModified = result else {
                Issue.record("answered the package")
                return
            }
            // SQLite's one instance holds every version it answers; on PostgreSQL another instance's newer version
            // may not have reached this cache yet, so a 304 is decided from one read of the order's head.
            #expect(counting.calls == (engine == .sqlite ? [:] : ["orderForFetch": 1]), "\(counting.calls)")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aWrongTokenForAnOrderTheCacheHoldsTakesThePathOfAMissingOrder(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let counting = CountingStore(store)
            let service = try OrderServiceTests.service(store, orders: counting)
            _ = await eventually { service.cache?.usage.live == true }
            let order = try await OrderServiceTests.create(service)
            let (type, id) = (order.orderTypeIdentifier, order.orderIdentifier)
            _ = try await service.fetch(type: type, id: id, token: order.authenticationToken)
            #expect(service.cache?.entry(type: type, id: id) != nil, "the right token's fetch left the order in the cache")

            // Both refusals read the store once, the same read: a cached order is not told from a missing one.
            var reads: [[String: Int]] = []
            for target in [id, "no-such-order"] {
                counting.reset()
                await #expect(throws: OrderServiceError.unauthorized) {
                    try await service.fetch(type: type, id: target, token: String(repeating: "0", count: 64))
                }
                reads.append(counting.calls)
            }
            #expect(reads == [["orderForFetch": 1], ["orderForFetch": 1]], "\(reads)")
        }
    }

    @Test func theConditionComparesTagsAndTimesAsRFC9110Says() {
        let head = OrderHead(
            authenticationToken: "t",
            updatedAt: Date(timeIntervalSince1970: 1_000),
            changeTag: 7,
            version: 3
        )
        #expect(!FetchCondition.none.isNotModified(head))
        #expect(FetchCondition.noneMatch(changeTags: [7], any: false).isNotModified(head))
        #expect(!FetchCondition.noneMatch(changeTags: [6, 8], any: false).isNotModified(head))
        #expect(FetchCondition.noneMatch(changeTags: [], any: true).isNotModified(head))
        #expect(FetchCondition.modifiedSince(Date(timeIntervalSince1970: 1_000)).isNotModified(head))
        #expect(!FetchCondition.modifiedSince(Date(timeIntervalSince1970: 999)).isNotModified(head))
    }
}
