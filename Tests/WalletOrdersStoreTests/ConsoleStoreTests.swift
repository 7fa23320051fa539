import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// What the operator's console reads, on each engine: the search box and filters, what each version changed, an
/// order's links and webhook deliveries, and the day-by-day activity.
@Suite(.timeLimit(.minutes(5))) struct ConsoleStoreTests {
    let type = Writes.type
    let start = Writes.start

    /// Order `id` with its own order number, created `days` after the start, following `parcel` when given.
    func order(_ id: String, number: String, days: Double = 0, status: String = "open", parcel: String? = nil) -> OrderWrite {
        let base = Writes.order(id, status: status, at: start.addingTimeInterval(days * 86_400))
        var document = base.document
        document["orderNumber"] = .string(number)
        return OrderWrite(
            orderTypeIdentifier: base.orderTypeIdentifier,
            orderIdentifier: id,
            authenticationToken: base.authenticationToken,
            document: document,
            createdAt: start.addingTimeInterval(days * 86_400),
            updatedAt: base.updatedAt,
            assets: nil,
            package: base.package,
            tracking: parcel.map { [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: $0, carrier: "UPS")] }
        )
    }

    func ids(_ store: any OrderStore, _ filter: OrderFilter, limit: Int = 50, before: Int64? = nil) async throws -> [String] {
        try await store.orders(filter, page: PageRequest(limit: limit, before: before)).records.map(\.orderIdentifier)
    }

    @Test(arguments: StoreEngine.allCases)
    func oneSearchBoxFindsOrdersByEveryNameTheyHaveAndFiltersNarrowThem(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(order("A-1", number: "1001", parcel: "1Z999AA10123456784"))
            _ = try await store.createOrder(order("A-2", number: "1002", days: 1, status: "completed"))
            _ = try await store.createOrder(order("A-3", number: "A-1", days: 2))
            _ = try await store.createOrder(order("A-4", number: "1004", days: 3))
            _ = try await store.at(start).register(
                device: "device-x",
                type: type,
                id: "A-2",
                pushToken: "abcdef0123456789",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            _ = try await store.at(start).register(
                device: "device-y",
                type: type,
                id: "A-4",
                pushToken: "abcdef9999999999",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )

            #expect(try await ids(store, OrderFilter()) == ["A-4", "A-3", "A-2", "A-1"])
            #expect(try await ids(store, OrderFilter(text: "1Z999AA10123456784")) == ["A-1"], "a tracking number")
            #expect(try await ids(store, OrderFilter(text: "1002")) == ["A-2"], "an order number")
            // Wallet's identifier of one order is another's order number: both are named.
            #expect(try await ids(store, OrderFilter(text: "A-1")) == ["A-3", "A-1"])
            #expect(try await ids(store, OrderFilter(text: "device-x")) == ["A-2"], "a device")
            #expect(try await ids(store, OrderFilter(text: "abcdef01")) == ["A-2"], "a push token's start")
            #expect(try await ids(store, OrderFilter(text: "ABCDEF")) == [], "fewer than 8 digits is not a token")
            #expect(try await ids(store, OrderFilter(text: "ABCDEF99")) == ["A-4"], "tokens are matched in lowercase")
            #expect(try await ids(store, OrderFilter(text: "abcdef")) == [])
            #expect(try await ids(store, OrderFilter(text: "nothing-like-it")) == [])
            #expect(try await ids(store, OrderFilter(text: "%")) == [], "no pattern characters")

            #expect(try await ids(store, OrderFilter(status: .completed)) == ["A-2"])
            #expect(try await ids(store, OrderFilter(status: .open, text: "abcdef01")) == [])
            #expect(try await ids(store, OrderFilter(type: "other.type")) == [])
            let from = start.addingTimeInterval(86_400)
            let before = start.addingTimeInterval(3 * 86_400)
            #expect(try await ids(store, OrderFilter(createdFrom: from, createdBefore: before)) == ["A-3", "A-2"])
            // Within creation days, pages go by creation time and on from their cursor.
            let dated = OrderFilter(createdFrom: start)
            let firstDated = try await store.orders(dated, page: PageRequest(limit: 3))
            #expect(firstDated.records.map(\.orderIdentifier) == ["A-4", "A-3", "A-2"])
            #expect(try await ids(store, dated, limit: 3, before: firstDated.next) == ["A-1"])
            var datedOldest = dated
            datedOldest.oldestFirst = true
            let firstOldest = try await store.orders(datedOldest, page: PageRequest(limit: 2))
            #expect(firstOldest.records.map(\.orderIdentifier) == ["A-1", "A-2"])
            #expect(try await ids(store, datedOldest, limit: 2, before: firstOldest.next) == ["A-3", "A-4"])

            // Pages go on from their cursor, in either direction.
            let newest = try await store.orders(OrderFilter(), page: PageRequest(limit: 3))
            #expect(newest.records.map(\.orderIdentifier) == ["A-4", "A-3", "A-2"])
            #expect(try await ids(store, OrderFilter(), limit: 3, before: newest.next) == ["A-1"])
            let oldest = try await store.orders(OrderFilter(oldestFirst: true), page: PageRequest(limit: 2))
            #expect(oldest.records.map(\.orderIdentifier) == ["A-1", "A-2"])
            #expect(try await ids(store, OrderFilter(oldestFirst: true), limit: 2, before: oldest.next) == ["A-3", "A-4"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aVersionKeepsWhatItChangedAndAnOrderItsLinksAndDeliveries(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let first = order("A-1", number: "1001")
            _ = try await store.createOrder(first)
            var document = first.document
            document["status"] = .string("completed")
            let changes = first.document.json.changes(to: document.json)
            #expect(changes.listed == [JSONChange(path: "status", before: .string("open"), after: .string("completed"))])
            let next = OrderWrite(
                orderTypeIdentifier: type,
                orderIdentifier: "A-1",
                authenticationToken: first.authenticationToken,
                document: document,
                createdAt: first.createdAt,
                updatedAt: start.addingTimeInterval(60),
                assets: nil,
                package: first.package,
                changes: changes
            )
            _ = try await store.at(start.addingTimeInterval(60)).updateOrder(next, expectedVersion: 1)
            let versions = try await store.versions(type: type, id: "A-1")
            #expect(versions.map(\.changes) == [nil, changes.listed])

            try await store.addOrderLink(
                OrderLink(
                    id: "lnk_one",
                    hash: Data("one".utf8),
                    merchantID: Merchant.defaultID,
                    orderTypeIdentifier: type,
                    orderIdentifier: "A-1",
                    reusable: false,
                    createdAt: start,
                    expiresAt: start.addingTimeInterval(600)
                ),
                maxLive: 5
            )
            _ = try await store.at(start.addingTimeInterval(5)).useOrderLink(hash: Data("one".utf8), client: "alice", grace: 30) { use in
                .linkDownloaded(linkID: use.linkID, downloads: use.downloads)
            }
            let links = try await store.orderLinks(type: type, id: "A-1")
            #expect(links.map(\.id) == ["lnk_one"])
            #expect(links.first?.downloads == 1)
            #expect(links.first?.firstUsedAt == start.addingTimeInterval(5))
            #expect(links.first?.revokedAt == nil)
            #expect(try await store.orderLinks(type: type, id: "A-2").isEmpty)
            #expect(try await store.webhookDeliveries(type: type, id: "A-1", limit: 10).isEmpty, "no endpoint, no delivery")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func activityCountsCreationsUpdatesAdditionsToWalletAndPushesByDay(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let day = StoreActivity.day(start)
            _ = try await store.createOrder(order("A-1", number: "1"))
            _ = try await store.createOrder(order("A-2", number: "2", days: 1))
            _ = try await store.createOrder(order("A-3", number: "3", days: 1))
            // Two devices for A-1 on different days: it was added on the first.
            _ = try await store.at(start).register(device: "d1", type: type, id: "A-1", pushToken: "t1", maxDevices: nil, firstDevice: .addedToWallet)
            let later = start.addingTimeInterval(86_400 + 10)
            _ = try await store.at(later).register(device: "d2", type: type, id: "A-1", pushToken: "t2", maxDevices: nil, firstDevice: .addedToWallet)
            try await store.at(later).unregister(device: "d1", type: type, id: "A-1", lastDevice: .removedFromWallet)
            _ = try await store.at(later).update("A-1", at: later)
            let claimed = try await store.at(later).claimDuePushes(
                types: [type],
                limit: 10,
                claim: OutboxClaim(owner: "me", lease: 60)
            )
            #expect(claimed.count == 1)
            try await store.at(later.addingTimeInterval(3)).finishPushes(claimed.map { ($0, .delivered) }, owner: "me")

            let activity = try await store.at(later).activity(merchant: nil, since: start)
            #expect(activity.ordersCreated == [day: 1, day + 1: 2])
            #expect(activity.ordersUpdated == [day + 1: 1])
            #expect(activity.ordersAdded == [day: 1], "added when its first device registered, though that one left")
            #expect(activity.addedOfCreated == 1)
            #expect(activity.registeredDevices == 1)
            #expect(activity.pushesQueued == [day + 1: 1])
            #expect(activity.pushesFinished == [day + 1: [.delivered: 1]])
            #expect(activity.deliverySeconds == [day + 1: [3: 1]])
            #expect(activity.outboxDepth == 0)

            let other = try await store.at(later).activity(merchant: Merchant.defaultID + 1, since: start)
            #expect(other == StoreActivity(), "another merchant's charts hold none of these")
        }
    }
}
