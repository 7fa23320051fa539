import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct TrackingEventTests {
    /// The service's clock in these tests: a day after the events they send happened.
    let now = Date(timeIntervalSince1970: 1_795_600_000)
    let shipping = object(
        #"{"fulfillmentType": "shipping", "fulfillmentIdentifier": "f1", "status": "processing", "trackingNumber": "1Z999", "lineItems": []}"#
    )

    @Test func anEventDecodesWithEveryField() throws {
        let value = try JSONValue.parse(
            Data(
                #"""
                {"id": "e1", "trackingNumber": "1Z999", "carrier": "UPS", "status": "out_for_delivery",
                 "occurredAt": "2026-11-25T08:00:00Z", "estimatedDeliveryAt": "2026-11-25T14:00:00+01:00",
                 "estimatedDeliveryWindowDuration": "PT2H", "description": "On the van"}
                """#.utf8
            )
        )
        let event = try TrackingEvent.decode(value, at: "events[0]", now: now).get()
        #expect(event.status == .outForDelivery)
        #expect(event.occurredAt == RFC3339.parseDateTime("2026-11-25T08:00:00Z"))
        #expect(event.estimatedDeliveryAt == RFC3339.parseDateTime("2026-11-25T13:00:00Z"))
        #expect(event.carrier == "UPS")
    }

    @Test func aBadEventNamesEachProblemByPath() {
        let value = JSONValue.object(
            object(
                #"{"id": "", "status": "lost", "occurredAt": "yesterday", "estimatedDeliveryWindowDuration": "2 hours", "colour": "red"}"#
            )
        )
        guard case .failure(let failure) = TrackingEvent.decode(value, at: "events[3]", now: now) else {
            Issue.record("a bad event decoded")
            return
        }
        let paths = Set(failure.problems.map(\.path))
        #expect(
            paths == [
                "events[3].id", "events[3].trackingNumber", "events[3].status", "events[3].occurredAt",
                "events[3].estimatedDeliveryWindowDuration", "events[3].colour",
            ]
        )
        #expect(failure.problems.contains { $0.message.contains("in_transit") })
    }

    /// The problems of an event that happened at `occurredAt` and is expected at `estimatedDeliveryAt`, decoded at `now`.
    func windowProblems(occurredAt: String, estimatedDeliveryAt: String? = nil) -> [OrderProblem] {
        var members: [String: JSONValue] = [
            "id": .string("e1"), "trackingNumber": .string("1Z999"), "status": .string("delivered"), "occurredAt": .string(occurredAt),
        ]
        if let estimatedDeliveryAt { members["estimatedDeliveryAt"] = .string(estimatedDeliveryAt) }
        switch TrackingEvent.decode(.object(members), at: "events[0]", now: now) {
        case .success: return []
        case .failure(let failure): return failure.problems
        }
    }

    @Test func anEventDatedInTheYear9999IsInvalidAndTheProblemNamesTheWindow() throws {
        let problems = windowProblems(occurredAt: "9999-12-31T23:59:59Z")
        #expect(problems.map(\.path) == ["events[0].occurredAt"])
        let message = try #require(problems.first?.message)
        #expect(message.contains("2000-01-01T00:00:00Z") && message.contains("3 days after now"), "\(message)")
        #expect(message.contains(RFC3339.format(now.addingTimeInterval(3 * 86_400))), "\(message)")
    }

    @Test func anEventThatHappenedIn1970IsInvalid() {
        #expect(windowProblems(occurredAt: "1970-01-01T00:00:00Z").map(\.path) == ["events[0].occurredAt"])
        #expect(windowProblems(occurredAt: "1999-12-31T23:59:59Z").map(\.path) == ["events[0].occurredAt"])
        #expect(windowProblems(occurredAt: "2000-01-01T00:00:00Z").isEmpty)
    }

    @Test func anEventMayHaveHappenedUpToThreeDaysAfterNowAndBeExpectedUpToAYearAfter() {
        let occurredEdge = RFC3339.format(now.addingTimeInterval(3 * 86_400))
        let expectedEdge = RFC3339.format(now.addingTimeInterval(365 * 86_400))
        #expect(windowProblems(occurredAt: occurredEdge, estimatedDeliveryAt: expectedEdge).isEmpty)
        let late = RFC3339.format(now.addingTimeInterval(3 * 86_400 + 1))
        #expect(windowProblems(occurredAt: late).map(\.path) == ["events[0].occurredAt"])
        let far = RFC3339.format(now.addingTimeInterval(365 * 86_400 + 1))
        #expect(windowProblems(occurredAt: occurredEdge, estimatedDeliveryAt: far).map(\.path) == ["events[0].estimatedDeliveryAt"])
        #expect(
            windowProblems(occurredAt: occurredEdge, estimatedDeliveryAt: "1999-12-31T00:00:00Z").map(\.path)
                == ["events[0].estimatedDeliveryAt"]
        )
    }

    @Test func anEventWithAnyInstantAtAllIsInvalidAndAppliesWithoutTrapping() {
        let extremes = [
            Date(timeIntervalSince1970: .greatestFiniteMagnitude), Date(timeIntervalSince1970: -.greatestFiniteMagnitude),
            Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity), Date(timeIntervalSince1970: .nan),
            Date(timeIntervalSince1970: Double(Int64.max)), Date(timeIntervalSince1970: Double(Int64.min)),
            Date(timeIntervalSince1970: 253_402_300_800),
        ]
        for at in extremes {
            let event = TrackingEvent(
                id: "e",
                trackingNumber: "1Z999",
                status: .delivered,
                occurredAt: at,
                estimatedDeliveryAt: at,
                estimatedDeliveryWindowDuration: "PT2H"
            )
            #expect(event.instantProblems(now: now).map(\.path) == ["occurredAt", "estimatedDeliveryAt"], "\(at)")
            let after = event.applied(to: FulfillmentView(shipping)).fields
            let written = after["deliveredAt"]?.stringValue ?? ""
            #expect(written == "0000-01-01T00:00:00Z" || written == "9999-12-31T23:59:59Z", "\(at): \(written)")
        }
    }

    @Test func everyStatusMapsOntoAStatusWalletKnowsForBothKinds() {
        let shipping: Set = ["open", "processing", "onTheWay", "outForDelivery", "delivered", "shipped", "issue", "cancelled"]
        let pickup: Set = ["open", "processing", "readyForPickup", "pickedUp", "issue", "cancelled"]
        for status in TrackingStatus.allCases {
            #expect(shipping.contains(status.shippingStatus), "\(status)")
            #expect(pickup.contains(status.pickupStatus), "\(status)")
        }
    }

    @Test func deliveryFillsTheDatesAndKeepsTheRestOfTheFulfillment() {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let event = TrackingEvent(id: "e", trackingNumber: "1Z999", carrier: "UPS", status: .delivered, occurredAt: at)
        let after = event.applied(to: FulfillmentView(shipping)).fields
        #expect(after["status"] == .string("delivered"))
        #expect(after["deliveredAt"] == .string(RFC3339.format(at)))
        #expect(after["shippedAt"] == .string(RFC3339.format(at)))
        #expect(after["carrier"] == .string("UPS"))
        #expect(after["lineItems"] == .array([]))
        #expect(after["fulfillmentIdentifier"] == .string("f1"))
    }

    @Test func aPickupFulfillmentIsReadyWhenTheParcelWaitsAtTheCounter() {
        let pickup = object(#"{"fulfillmentType": "pickup", "fulfillmentIdentifier": "p", "status": "processing"}"#)
        let event = TrackingEvent(id: "e", trackingNumber: "N", status: .availableForPickup, occurredAt: Date())
        let after = event.applied(to: FulfillmentView(pickup)).fields
        #expect(after["status"] == .string("readyForPickup"))
        #expect(after["carrier"] == nil)
        #expect(after["statusDescription"] == .string("Ready to collect from the carrier"))
    }

    @Test func carriersMatchWhateverTheirSpelling() {
        let event = TrackingEvent(id: "e", trackingNumber: "N", carrier: "DHL Express", status: .inTransit, occurredAt: Date())
        #expect(event.matches(carrier: "dhl-express"))
        #expect(event.matches(carrier: "dhl"), "an aggregator's slug")
        #expect(event.matches(carrier: nil))
        #expect(!event.matches(carrier: "UPS"))
    }
}

/// The object `text` holds.
private func object(_ text: String) -> [String: JSONValue] {
    (try? JSONValue.parse(Data(text.utf8)))?.objectValue ?? [:]
}
