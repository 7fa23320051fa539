import Foundation
import Testing
import WalletOrdersModel

/// The typed view of a fulfillment keeps every member it does not name, so that code that changes a fulfillment
/// never drops what a merchant sent.
@Suite(.timeLimit(.minutes(1))) struct FulfillmentViewTests {
    static let sent: [String: JSONValue] = [
        "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("f1"), "status": .string("processing"),
        "carrier": .string("UPS"), "lineItems": .array([.string("sku-1")]), "x-merchant-note": .object(["a": .int(1)]),
    ]

    @Test func settingFieldsKeepsTheMembersTheViewDoesNotName() {
        var view = FulfillmentView(Self.sent)
        #expect(view.identifier == "f1" && view.status == "processing" && view.carrier == "UPS" && !view.isPickup)
        view.status = "onTheWay"
        view.trackingNumber = "1Z999AA10123456784"
        view.carrier = nil
        #expect(view.fields["status"] == .string("onTheWay"))
        #expect(view.fields["trackingNumber"] == .string("1Z999AA10123456784"))
        #expect(view.fields["carrier"] == nil, "nil removes the member")
        #expect(view.fields["lineItems"] == Self.sent["lineItems"])
        #expect(view.fields["x-merchant-note"] == Self.sent["x-merchant-note"])
    }

    @Test func aDocumentChangesOnlyWhenAFulfillmentDoes() {
        let document = OrderDocument(fields: [
            "status": .string("open"),
            "fulfillments": .array([.object(Self.sent), .string("not an object"), .object(["fulfillmentType": .string("pickup")])]),
        ])
        #expect(document.fulfillmentViews.count == 2)
        #expect(document.fulfillmentViews[1].isPickup)
        #expect(document.changingFulfillments { _ in } == document)
        let changed = document.changingFulfillments { view in
            if view.identifier == "f1" { view.status = "delivered" }
        }
        let array = changed["fulfillments"]?.arrayValue ?? []
        #expect(array.count == 3)
        #expect(array[1] == .string("not an object"), "a member that is not an object is kept where it was")
        #expect(array[0]["status"] == .string("delivered"))
        #expect(array[0]["x-merchant-note"] == Self.sent["x-merchant-note"])
        #expect(changed["status"] == .string("open"))
    }
}
