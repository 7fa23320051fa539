import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// The parcels orders follow and the tracking events kept for them, on each engine.
@Suite(.timeLimit(.minutes(5))) struct TrackingStoreTests {
    let start = Writes.start

    /// `order` carrying `parcels` and `author`, as the service hands a write over.
    func write(_ order: OrderWrite, _ parcels: [TrackedParcel]?, by author: VersionAuthor = .partner("parcelco")) -> OrderWrite {
        OrderWrite(
            orderTypeIdentifier: order.orderTypeIdentifier,
            orderIdentifier: order.orderIdentifier,
            authenticationToken: order.authenticationToken,
            document: order.document,
            createdAt: order.createdAt,
            updatedAt: order.updatedAt,
            assets: order.assets,
            package: order.package,
            author: author,
            tracking: parcels
        )
    }

    func commit(_ store: any OrderStore, _ parcels: [TrackedParcel]?, at seconds: TimeInterval) async throws {
        let current = try #require(try await store.currentOrder(type: Writes.type, id: "A-1001"))
        let next = Writes.order(at: start.addingTimeInterval(seconds))
        _ = try await store.updateOrder(write(next, parcels), expectedVersion: current.order.version, now: next.updatedAt)
    }

    @Test(arguments: StoreEngine.allCases)
    func aParcelKeepsItsLastEventUntilItsNumberChangesAndGoesWithItsFulfillment(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let first = [
                TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z1", carrier: "UPS"),
                TrackedParcel(fulfillmentIdentifier: "f2", trackingNumber: "1Z2", carrier: nil),
            ]
            _ = try await store.createOrder(write(Writes.order(), first, by: .merchant("default")))
            #expect(try await store.trackedParcels(type: Writes.type, id: "A-1001") == first)

            let eventAt = start.addingTimeInterval(100)
            try await commit(
                store,
                [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z1", carrier: "UPS", lastEventAt: eventAt)] + first.suffix(1),
                at: 10
            )
            // A merchant's write that keeps the number keeps the event's time (it sends none).
            try await commit(store, first, at: 20)
            var parcels = try await store.trackedParcels(type: Writes.type, id: "A-1001")
            #expect(parcels.first?.lastEventAt == eventAt)
            // A new number starts afresh; a fulfillment gone takes its parcel with it.
            try await commit(store, [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z9", carrier: "UPS")], at: 30)
            parcels = try await store.trackedParcels(type: Writes.type, id: "A-1001")
            #expect(parcels == [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z9", carrier: "UPS")])
            // nil: as they were.
            try await commit(store, nil, at: 40)
            #expect(try await store.trackedParcels(type: Writes.type, id: "A-1001") == parcels)

            let found = try await store.trackedFulfillments(trackingNumbers: ["1Z9", "1Z1"], merchantIDs: [Merchant.defaultID])
            #expect(found.map(\.orderIdentifier) == ["A-1001"])
            #expect(try await store.trackedFulfillments(trackingNumbers: ["1Z9"], merchantIDs: [Merchant.defaultID + 1]).isEmpty)
            let versions = try await store.versions(type: Writes.type, id: "A-1001")
            #expect(versions.map(\.author) == ["merchant:default"] + Array(repeating: "partner:parcelco", count: 4))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func eventsAreKeptOncePerSenderWaitAndArePruned(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            func event(_ id: String, _ number: String = "1Z1", from source: String = "partner:1") -> TrackingEventRecord {
                TrackingEventRecord(source: source, id: id, trackingNumber: number, body: Data(#"{"id":"\#(id)"}"#.utf8))
            }
            let first = try await store.receiveTrackingEvents([event("a"), event("b", "1Z2"), event("a", from: "merchant:1")], now: start)
            #expect(first == [nil, nil, nil], "an id is the sender's own")
            try await store.settleTrackingEvents([("partner:1", "a", .applied), ("partner:1", "b", .pending)])
            let again = try await store.receiveTrackingEvents([event("a"), event("b", "1Z2"), event("c")], now: start.addingTimeInterval(60))
            #expect(again == [.applied, .pending, nil])
            #expect(try await store.pendingTrackingEventCount(source: "partner:1") == 1)

            // Waiting: pending, and received but never settled (a request that stopped halfway).
            let waiting = try await store.waitingTrackingEvents(trackingNumbers: ["1Z1", "1Z2"], sources: ["partner:1"])
            #expect(waiting.map(\.id) == ["b", "c"])
            #expect(waiting.first?.body == Data(#"{"id":"b"}"#.utf8))
            #expect(try await store.waitingTrackingEvents(trackingNumbers: ["1Z2"], sources: ["partner:2"]).isEmpty)

            #expect(try await store.pruneTrackingEvents(receivedBefore: start.addingTimeInterval(30)) == 3)
            #expect(try await store.receiveTrackingEvents([event("a")], now: start.addingTimeInterval(90)) == [nil])
        }
    }
}
