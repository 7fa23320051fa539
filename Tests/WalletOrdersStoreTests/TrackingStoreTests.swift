import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersPostgres
import WalletOrdersSQLite
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
        _ = try await store.at(next.updatedAt).updateOrder(write(next, parcels), expectedVersion: current.order.version)
    }

    /// The parcels of the order as written: what a write names, without what the store keeps of its own.
    func written(_ store: any OrderStore) async throws -> [TrackedParcel] {
        try await store.trackedParcels(type: Writes.type, id: "A-1001").map {
            TrackedParcel(
                fulfillmentIdentifier: $0.fulfillmentIdentifier,
                trackingNumber: $0.trackingNumber,
                carrier: $0.carrier,
                lastEventAt: $0.lastEventAt
            )
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aParcelKeepsItsLastEventUntilItsNumberChangesAndGoesWithItsFulfillment(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let first = [
                TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z1", carrier: "UPS"),
                TrackedParcel(fulfillmentIdentifier: "f2", trackingNumber: "1Z2", carrier: nil),
            ]
            _ = try await store.createOrder(write(Writes.order(), first, by: .merchant("default")))
            #expect(try await written(store) == first)

            let eventAt = start.addingTimeInterval(100)
            try await commit(
                store,
                [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z1", carrier: "UPS", lastEventAt: eventAt)] + first.suffix(1),
                at: 10
            )
            // A merchant's write that keeps the number keeps the event's time (it sends none).
            try await commit(store, first, at: 20)
            var parcels = try await written(store)
            #expect(parcels.first?.lastEventAt == eventAt)
            // A new number starts afresh; a fulfillment gone takes its parcel with it.
            try await commit(store, [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z9", carrier: "UPS")], at: 30)
            parcels = try await written(store)
            #expect(parcels == [TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "1Z9", carrier: "UPS")])
            // nil: as they were.
            try await commit(store, nil, at: 40)
            #expect(try await written(store) == parcels)

            let found = try await store.trackedFulfillments(trackingNumbers: ["1Z9", "1Z1"], merchantIDs: [Merchant.defaultID])
            #expect(found.map(\.orderIdentifier) == ["A-1001"])
            #expect(try await store.trackedFulfillments(trackingNumbers: ["1Z9"], merchantIDs: [Merchant.defaultID + 1]).isEmpty)
            let versions = try await store.versions(type: Writes.type, id: "A-1001")
            #expect(versions.map(\.author) == ["merchant:default"] + Array(repeating: "partner:parcelco", count: 4))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aParcelInTransitIsQuietUntilHeardOfAndFoundStalledOnceUntilHeardOfAgain(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            // What the service says of each write (`OrderService.parcels`): whether it is news of the parcel.
            func parcels(
                _ number: String = "1Z1",
                event: TimeInterval? = nil,
                moving: Bool = true,
                news: Bool = false
            ) -> [TrackedParcel] {
                [
                    TrackedParcel(
                        fulfillmentIdentifier: "f1",
                        trackingNumber: number,
                        carrier: "UPS",
                        lastEventAt: event.map { start.addingTimeInterval($0) },
                        inTransit: moving,
                        isNews: news
                    ),
                    TrackedParcel(fulfillmentIdentifier: "f2", trackingNumber: "1Z2", carrier: nil, inTransit: false),
                ]
            }
            func first() async throws -> TrackedParcel { try #require(try await store.trackedParcels(type: Writes.type, id: "A-1001").first) }
            func quiet(before seconds: TimeInterval, merchant: Int64 = Merchant.defaultID) async throws -> [String] {
                try await store.quietParcels(merchantID: merchant, heardBefore: start.addingTimeInterval(seconds), limit: 10)
                    .map(\.parcel.fulfillmentIdentifier)
            }
            _ = try await store.at(start).createOrder(write(Writes.order(), parcels(), by: .merchant("default")))
            var parcel = try await first()
            #expect(parcel.inTransit == true && parcel.heardAt == start && parcel.stalledAt == nil)
            #expect(try await quiet(before: 100) == ["f1"], "a delivered parcel is never quiet")
            #expect(try await quiet(before: 0).isEmpty)
            #expect(try await quiet(before: 100, merchant: Merchant.defaultID + 1).isEmpty)

            // A write that is no news keeps when it was heard of; news is heard of at its write.
            try await commit(store, parcels(), at: 50)
            #expect(try await first().heardAt == start)
            try await commit(store, parcels(event: 55, news: true), at: 60)
            #expect(try await first().heardAt == start.addingTimeInterval(60))
            #expect(try await quiet(before: 60).isEmpty)

            // Marked stalled only while no news came since the pass looked.
            let found = try #require(
                try await store.quietParcels(merchantID: Merchant.defaultID, heardBefore: start.addingTimeInterval(65), limit: 1).first
            )
            try await store.at(start.addingTimeInterval(70)).markStalled(found, heardBefore: start.addingTimeInterval(50))
            #expect(try await first().stalledAt == nil)
            try await store.at(start.addingTimeInterval(70)).markStalled(found, heardBefore: start.addingTimeInterval(65))
            #expect(try await first().stalledAt == start.addingTimeInterval(70))
            #expect(try await quiet(before: 1_000).isEmpty)

            // A write that is no news of it keeps the mark.
            try await commit(store, parcels(moving: false), at: 80)
            parcel = try await first()
            #expect(parcel.inTransit == false && parcel.heardAt == start.addingTimeInterval(60))
            #expect(parcel.stalledAt == start.addingTimeInterval(70))

            // News (a carrier event, a new tracking number, any change to the fulfillment): watched again.
            try await commit(store, parcels(event: 95, news: true), at: 100)
            parcel = try await first()
            #expect(parcel.stalledAt == nil && parcel.heardAt == start.addingTimeInterval(100))
            #expect(try await quiet(before: 1_000) == ["f1"])
            try await store.at(start.addingTimeInterval(110)).markStalled(found, heardBefore: start.addingTimeInterval(1_000))
            try await commit(store, parcels("1Z7", news: true), at: 120)
            parcel = try await first()
            #expect(parcel.stalledAt == nil && parcel.heardAt == start.addingTimeInterval(120))
            #expect(try await quiet(before: 1_000) == ["f1"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func eventsAreKeptOncePerSenderWaitAndArePruned(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            func event(_ id: String, _ number: String = "1Z1", from source: String = "partner:1") -> TrackingEventRecord {
                TrackingEventRecord(source: source, id: id, trackingNumber: number, body: Data(#"{"id":"\#(id)"}"#.utf8))
            }
            let first = try await store.at(start).receiveTrackingEvents([event("a"), event("b", "1Z2"), event("a", from: "merchant:1")])
            #expect(first == [nil, nil, nil], "an id is the sender's own")
            try await store.settleTrackingEvents([("partner:1", "a", .applied), ("partner:1", "b", .pending)])
            let again = try await store.at(start.addingTimeInterval(60)).receiveTrackingEvents([event("a"), event("b", "1Z2"), event("c")])
            #expect(again == [.applied, .pending, nil])
            #expect(try await store.waitingTrackingEventCount(source: "partner:1") == 2, "b pending, c received")

            // Waiting: pending, and received but never settled (a request that stopped halfway).
            let waiting = try await store.waitingTrackingEvents(trackingNumbers: ["1Z1", "1Z2"], sources: ["partner:1"])
            #expect(waiting.map(\.id) == ["b", "c"])
            #expect(waiting.first?.body == Data(#"{"id":"b"}"#.utf8))
            #expect(try await store.waitingTrackingEvents(trackingNumbers: ["1Z2"], sources: ["partner:2"]).isEmpty)

            // A refused event is forgotten, only while it is `received`: sent again, it is new.
            try await store.forgetTrackingEvents([("partner:1", "c"), ("partner:1", "a"), ("partner:1", "b")])
            #expect(try await store.waitingTrackingEventCount(source: "partner:1") == 1)
            let resent = try await store.at(start.addingTimeInterval(60)).receiveTrackingEvents([event("a"), event("c")])
            #expect(resent == [.applied, nil])

            #expect(try await store.at(start.addingTimeInterval(30)).pruneTrackingEvents(olderThan: 0) == 3)
            #expect(try await store.at(start.addingTimeInterval(90)).receiveTrackingEvents([event("a")]) == [nil])
        }
    }

    /// 150,000 events of one sender, as an outside test stored (issue 39): most settled, one in ten waiting.
    func keepManyEvents(in store: any OrderStore) async throws {
        for batch in 0..<150 {
            let events = (0..<1_000).map { offset in
                let n = batch * 1_000 + offset
                return TrackingEventRecord(source: "partner:1", id: "e\(n)", trackingNumber: "1Z\(n)", body: Data("{}".utf8))
            }
            _ = try await store.at(start).receiveTrackingEvents(events)
            try await store.settleTrackingEvents(events.prefix(900).map { ($0.source, $0.id, .applied) })
        }
        _ = try await store.at(start).receiveTrackingEvents(
            [TrackingEventRecord(source: "merchant:1", id: "m", trackingNumber: "1Z-M", body: Data("{}".utf8))])
    }

    /// The plan of the waiting lookup a write that adds tracking numbers runs, on `engine`.
    func waitingPlan(_ store: any OrderStore, _ numbers: [String], _ sources: [String]) async throws -> [String] {
        if let sqlite = store as? SQLiteStore {
            return try await sqlite.waitingTrackingEventsPlan(trackingNumbers: numbers, sources: sources)
        }
        let postgres = try #require(store as? PostgresStore)
        return try await postgres.waitingTrackingEventsPlan(trackingNumbers: numbers, sources: sources)
    }

    @Test(arguments: StoreEngine.allCases)
    func theWaitingLookupFindsEventsByNumberAndSenderNotByWalkingTheSendersEvents(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            try await keepManyEvents(in: store)
            #expect(try await store.waitingTrackingEventCount(source: "partner:1") == 15_000)
            let numbers = ["1Z-M", "1Z1", "1Z149999"]
            let sources = ["partner:1", "merchant:1", "partner:2"]
            let found = try await store.waitingTrackingEvents(trackingNumbers: numbers, sources: sources)
            #expect(found.map(\.id).sorted() == ["e149999", "m"])
            // Before the planner has statistics (a database analysed while the table was small) and after.
            for analysed in [false, true] {
                if analysed { try await store.optimize() }
                let plan = try await waitingPlan(store, numbers, sources)
                let text = plan.joined(separator: "\n")
                switch engine {
                case .sqlite:
                    #expect(
                        plan.contains { $0.contains("USING INDEX tracking_events_waiting (tracking_number=? AND source=?)") },
                        "analysed: \(analysed)\n\(text)"
                    )
                    #expect(!text.contains("PRIMARY KEY") && !text.contains("SCAN tracking_events"), "analysed: \(analysed)\n\(text)")
                case .postgres:
                    #expect(
                        text.contains("using tracking_events_waiting ") || text.contains("on tracking_events_waiting "),
                        "analysed: \(analysed)\n\(text)"
                    )
                    #expect(!text.contains("Seq Scan"), "analysed: \(analysed)\n\(text)")
                }
            }
        }
    }
}
