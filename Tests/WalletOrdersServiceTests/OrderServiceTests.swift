import Foundation
import NIOCore
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// The write path: read, change, validate, sign outside any transaction, commit over the version read.
@Suite(.timeLimit(.minutes(5))) struct OrderServiceTests {
    /// A service over `store`; `orders`, when given, stands in for the store's orders (a `CountingStore`).
    static func service(
        _ store: any OrderStore,
        orders: (any OrderStorage)? = nil,
        counters: OrderService.Counters = .init(),
        template: OrderTemplate? = nil,
        cacheCapacity: Int = OrderService.defaultCacheCapacity
    ) throws -> OrderService {
        let type = OrderType(
            identifier: DevelopmentKeys.orderType,
            builder: PackageBuilder(identity: DevelopmentKeys.shared.identity),
            template: try template ?? OrderTemplate(directory: SampleOrder.templateFolder)
        )
        var capabilities = StoreCapabilities(store)
        if let orders { capabilities.orders = orders }
        return OrderService(
            store: capabilities,
            orderTypes: [type],
            webServiceURL: "https://orders.example.com",
            counters: counters,
            cacheCapacity: cacheCapacity
        )
    }

    static func create(_ service: OrderService, id: String? = nil) async throws -> StoredOrder {
        var body = SampleOrder.json().objectValue!
        for key in ["createdAt", "updatedAt", "merchant"] { body.removeValue(forKey: key) }
        if let id { body["orderIdentifier"] = .string(id) }
        return try await service.create(OrderInput(fields: body)).order
    }

    @Test(arguments: StoreEngine.allCases)
    func concurrentUpdatesOfOneOrderAllLandInTurn(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            let order = try await Self.create(service)
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        try await service.patch(
                            type: order.orderTypeIdentifier,
                            id: order.orderIdentifier,
                            OrderPatch(changes: ["orderNumber": .string("N-\(index)")])
                        ).order.version
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(versions.sorted() == Array(2...25), "every update got a version of its own")
            let history = try await store.versions(type: order.orderTypeIdentifier, id: order.orderIdentifier)
            #expect(history.count == 25)
            #expect(Set(history.map(\.updatedAt)).count == 25, "each version a second past the last")
        }
    }

    /// A merchant sending more updates at once than the store has database connections (the test stores have
    /// four): each update holds a connection only for its own queries, never while it waits for another one or
    /// for its signature, so every update lands and the store still answers. (Before, PostgreSQL never finished:
    /// the limit, generous for a loaded machine, turns that into a failure.)
    @Test(.timeLimit(.minutes(3)), arguments: StoreEngine.allCases)
    func moreUpdatesAtOnceThanDatabaseConnectionsAllLand(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            var orders: [StoredOrder] = []
            for index in 0..<16 { orders.append(try await Self.create(service, id: "A-\(index)")) }
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for order in orders {
                    group.addTask {
                        try await service.patch(
                            type: order.orderTypeIdentifier,
                            id: order.orderIdentifier,
                            OrderPatch(changes: ["orderNumber": .string("N-2")])
                        ).order.version
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(versions == Array(repeating: 2, count: 16))
            #expect(await store.isReachable())
        }
    }

    /// Two instances (two services over two stores on one database) update one order at once: each write lands
    /// exactly once, the losers of a race having read and signed again.
    @Test func twoInstancesUpdatingOneOrderNeverLoseAWrite() async throws {
        let folder = try TemporaryDirectory("instances")
        let (first, location) = try await TestStore.make(.postgres, in: folder)
        let second = try await TestStore.reopen(.postgres, at: location)
        let services = [try Self.service(first), try Self.service(second)]
        let order = try await Self.create(services[0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    _ = try await services[index % 2].patch(
                        type: order.orderTypeIdentifier,
                        id: order.orderIdentifier,
                        OrderPatch(changes: ["orderNumber": .string("N-\(index)")])
                    )
                }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try await first.order(type: order.orderTypeIdentifier, id: order.orderIdentifier))
        #expect(stored.version == 21)
        #expect(try await second.versions(type: order.orderTypeIdentifier, id: order.orderIdentifier).count == 21)
        await first.close()
        await second.close()
    }

    @Test(arguments: StoreEngine.allCases)
    func aRefusedUpdateWritesNothing(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            let order = try await Self.create(service)
            let error = await #expect(throws: OrderServiceError.self) {
                try await service.patch(
                    type: order.orderTypeIdentifier,
                    id: order.orderIdentifier,
                    OrderPatch(changes: ["status": .string("lost")])
                )
            }
            guard case .invalidOrder(_, let problems)? = error else {
                Issue.record("expected an invalid order, got \(String(describing: error))")
                return
            }
            #expect(problems.map(\.path) == ["status"])
            #expect(try await store.order(type: order.orderTypeIdentifier, id: order.orderIdentifier)?.version == 1)
            await #expect(throws: OrderServiceError.orderNotFound) {
                try await service.patch(type: order.orderTypeIdentifier, id: "missing", OrderPatch(changes: [:]))
            }
            await #expect(throws: OrderServiceError.unauthorized) {
                try await service.fetch(type: order.orderTypeIdentifier, id: order.orderIdentifier, token: "wrong")
            }
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anOrderLoadedWithoutAPackageIsSignedOnItsFirstFetch(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            var document = SampleOrder.document(orderIdentifier: "imported", updatedAt: "2026-11-21T09:30:00Z")
            document["authenticationToken"] = .string("an-imported-token-0123")
            document["webServiceURL"] = .string("https://orders.example.com")
            try await store.importRecords(
                orders: [
                    ImportedOrder(
                        orderTypeIdentifier: DevelopmentKeys.orderType,
                        orderIdentifier: "imported",
                        authenticationToken: "an-imported-token-0123",
                        document: document,
                        createdAt: Date(),
                        updatedAt: Date(),
                        package: nil
                    )
                ],
                registrations: []
            )
            let fetched = try await service.fetchPackage(
                type: DevelopmentKeys.orderType,
                id: "imported",
                token: "an-imported-token-0123"
            )
            let package = Data(fetched.package.readableBytesView)
            let report = PackageVerifier.verify(package, trustedRoots: [DevelopmentKeys.shared.chain.root])
            #expect(report.problems == [])
            let stored = try #require(try await store.orderForFetch(type: DevelopmentKeys.orderType, id: "imported")?.package)
            #expect(PackageSeal(encoded: stored) != nil, "its seal was stored")
        }
    }

    /// What the store keeps of a package is its seal; a fetch the cache cannot answer assembles the same bytes from
    /// it without signing, until the template changes, when the package is signed again.
    @Test(arguments: StoreEngine.allCases)
    func aFetchAssemblesThePackageFromItsStoredSealAndSignsAgainOnceTheTemplateChanged(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let builds = Tally()
            let counters = OrderService.Counters(packageBuilt: { builds.add() })
            let writer = try Self.service(store, counters: counters)
            let order = try await Self.create(writer)
            let (type, id, token) = (order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken)
            _ = try await writer.patch(type: type, id: id, OrderPatch(changes: ["orderNumber": .string("N-2")]))
            let written = try await writer.fetchPackage(type: type, id: id, token: token)
            #expect(written.head.version == 2)
            let stored = try #require(try await store.orderForFetch(type: type, id: id)?.package)
            #expect(PackageSeal(encoded: stored) != nil)
            #expect(stored.count < 400, "a seal, not the \(written.package.readableBytes)-byte package")
            #expect(builds.value == 2)

            let cold = try Self.service(store, counters: counters, cacheCapacity: 0)
            for _ in 0..<2 {
                #expect(try await cold.fetchPackage(type: type, id: id, token: token).package == written.package)
            }
            #expect(builds.value == 2, "assembled, not signed")

            let cms = try await Command.verifySignature(
                ofPackage: Data(written.package.readableBytesView),
                rootPath: DevelopmentKeys.shared.rootPath
            )
            #expect(cms.status == 0, "\(cms.error)")

            var files = try OrderTemplate(directory: SampleOrder.templateFolder).files
            files["logo.png"] = files["mug.png"]
            let retemplated = try Self.service(
                store,
                counters: counters,
                template: OrderTemplate(
                    files: files,
                    defaults: OrderTemplate(directory: SampleOrder.templateFolder).defaults
                ),
                cacheCapacity: 0
            )
            let resigned = try await retemplated.fetchPackage(type: type, id: id, token: token)
            #expect(builds.value == 3, "the seal no longer fits the template: signed again")
            let report = PackageVerifier.verify(
                Data(resigned.package.readableBytesView),
                trustedRoots: [DevelopmentKeys.shared.chain.root]
            )
            #expect(report.problems == [])
            let logo = try ZipArchive.read(Data(resigned.package.readableBytesView)).first { $0.path == "logo.png" }
            #expect(logo?.data == files["mug.png"])
            #expect(try await store.orderForFetch(type: type, id: id)?.package != stored, "the new seal was stored")
            #expect(try await retemplated.fetchPackage(type: type, id: id, token: token).package == resigned.package)
            #expect(builds.value == 3)
        }
    }

    /// A package stored whole (by a version before seals) is served as it is.
    @Test(arguments: StoreEngine.allCases)
    func aWholeStoredPackageIsServedAsItIs(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try Self.service(store, cacheCapacity: 0)
            let order = try await Self.create(service)
            let (type, id, token) = (order.orderTypeIdentifier, order.orderIdentifier, order.authenticationToken)
            let whole = try await service.fetchPackage(type: type, id: id, token: token).package
            #expect(try await store.savePackage(type: type, id: id, version: 1, data: Data(whole.readableBytesView)))
            #expect(try await service.fetchPackage(type: type, id: id, token: token).package == whole)
        }
    }
}

extension OrderService {
    /// A device's fetch that wants the package (no condition): the package, or a test failure.
    func fetchPackage(type: String, id: String, token: String?) async throws -> FetchedPackage {
        try #require(try await fetch(type: type, id: id, token: token).fetched)
    }
}
