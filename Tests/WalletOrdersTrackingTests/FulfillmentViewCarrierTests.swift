import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct FulfillmentViewCarrierTests {
    /// A shipping fulfillment with a UPS tracking number (UPS's example) and members the helper must keep as they are.
    let shipping: [String: JSONValue] = [
        "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"), "status": .string("onTheWay"),
        "trackingNumber": .string("1Z 999 AA1 01 2345 6784"), "lineItems": .array([.object(["quantity": .int(1)])]),
        "notes": .string("Leave at the door"),
    ]
    let upsPage = "https://www.ups.com/track?tracknum=1Z999AA10123456784"

    @Test func aTrackingNumberAloneGivesTheCarrierAndItsTrackingPage() {
        var view = FulfillmentView(shipping)
        let changed = view.fillCarrierFromTrackingNumber()
        #expect(changed)
        #expect(view.carrier == "UPS")
        #expect(view.trackingURL == upsPage)
        // The number stays as the shop wrote it, and so does everything else.
        var expected = shipping
        expected["carrier"] = .string("UPS")
        expected["trackingURL"] = .string(upsPage)
        #expect(view.fields == expected)
    }

    @Test func theShopsNameForTheRecognisedCarrierGetsOnlyTheTrackingPage() {
        for given in ["UPS", "ups", "United Parcel Service", "UPS Ground"] {
            var fields = shipping
            fields["carrier"] = .string(given)
            var view = FulfillmentView(fields)
            let changed = view.fillCarrierFromTrackingNumber()
            #expect(changed, "\(given)")
            #expect(view.carrier == given)
            #expect(view.trackingURL == upsPage)
        }
    }

    @Test func anotherCarrierNamedByTheShopLeavesTheFulfillmentAsItIs() {
        for given in ["FedEx", "DHL", "Our own van", ""] {
            var fields = shipping
            fields["carrier"] = .string(given)
            var view = FulfillmentView(fields)
            let changed = view.fillCarrierFromTrackingNumber()
            #expect(!changed, "\(given)")
            #expect(view.fields == fields)
        }
    }

    @Test func aTrackingURLFromTheShopIsNeverReplacedNorACarrierAddedBesideIt() {
        var onlyURL = shipping
        onlyURL["trackingURL"] = .string("https://shop.example.com/track/1001")
        var both = onlyURL
        both["carrier"] = .string("UPS")
        for fields in [onlyURL, both] {
            var view = FulfillmentView(fields)
            let changed = view.fillCarrierFromTrackingNumber()
            #expect(!changed)
            #expect(view.fields == fields)
        }
    }

    @Test func aValueThatIsNotAStringIsTheShopsToo() {
        for key in ["carrier", "trackingURL"] {
            var fields = shipping
            fields[key] = .int(7)
            var view = FulfillmentView(fields)
            let changed = view.fillCarrierFromTrackingNumber()
            #expect(!changed, "\(key)")
            #expect(view.fields == fields)
        }
    }

    @Test func aNullCarrierIsNoCarrier() {
        var fields = shipping
        fields["carrier"] = .null
        fields["trackingURL"] = .null
        var view = FulfillmentView(fields)
        let changed = view.fillCarrierFromTrackingNumber()
        #expect(changed)
        #expect(view.carrier == "UPS")
        #expect(view.trackingURL == upsPage)
    }

    @Test func anUnknownOrAmbiguousNumberAPickupOrNoNumberChangeNothing() {
        var unknown = shipping
        unknown["trackingNumber"] = .string("1Z999AA10123456785")
        var ambiguous = shipping
        ambiguous["trackingNumber"] = .string("012345678983")
        var pickup = shipping
        pickup["fulfillmentType"] = .string("pickup")
        var none = shipping
        none["trackingNumber"] = nil
        var notAString = shipping
        notAString["trackingNumber"] = .int(123_456_789_012)
        for fields in [unknown, ambiguous, pickup, none, notAString] {
            var view = FulfillmentView(fields)
            let changed = view.fillCarrierFromTrackingNumber()
            #expect(!changed)
            #expect(view.fields == fields)
        }
    }

    @Test func fillingTwiceChangesNothingTheSecondTime() {
        var view = FulfillmentView(shipping)
        let first = view.fillCarrierFromTrackingNumber()
        let once = view
        let second = view.fillCarrierFromTrackingNumber()
        #expect(first && !second)
        #expect(view == once)
    }

    @Test func anOrdersFulfillmentsAreFilledEachOnItsOwn() throws {
        var royalMail = shipping
        royalMail["fulfillmentIdentifier"] = .string("parcel-2")
        royalMail["trackingNumber"] = .string("RR473124829GB")
        var named = shipping
        named["fulfillmentIdentifier"] = .string("parcel-3")
        named["carrier"] = .string("Hermes")
        let document = OrderDocument(fields: [
            "orderIdentifier": .string("1001"),
            "fulfillments": .array([.object(shipping), .object(royalMail), .object(named), .string("not an object")]),
        ])
        let filled = document.changingFulfillments { _ = $0.fillCarrierFromTrackingNumber() }
        let views = filled.fulfillmentViews
        try #require(views.count == 3)
        #expect(views[0].carrier == "UPS")
        #expect(views[1].carrier == "Royal Mail")
        #expect(views[1].trackingURL == "https://www.royalmail.com/track-your-item#/tracking-results/RR473124829GB")
        #expect(views[2].fields == named)
        #expect(filled["fulfillments"]?.arrayValue?.last == .string("not an object"))
    }
}
