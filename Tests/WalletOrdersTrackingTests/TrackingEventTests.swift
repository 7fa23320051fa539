import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct TrackingEventTests {
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
        let event = try TrackingEvent.decode(value, at: "events[0]").get()
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
        guard case .failure(let failure) = TrackingEvent.decode(value, at: "events[3]") else {
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
        let after = event.applied(to: shipping)
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
        let after = event.applied(to: pickup)
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
