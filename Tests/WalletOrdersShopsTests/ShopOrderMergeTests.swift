import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops

/// How a shop's order lies over the Wallet order the service keeps: the shop's fields replaced, everything else kept,
/// fulfillments merged by identifier without moving back, and nothing written when nothing changes.
@Suite(.timeLimit(.minutes(5))) struct ShopOrderMergeTests {
    func shipment(_ fields: [String: JSONValue]) -> FulfillmentView {
        FulfillmentView(fields.merging(["fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("shopify-1")]) { $1 })
    }

    @Test func theShopsFieldsReplaceTheirMembersAndNullRemovesOne() {
        var document = ShopFixture.serviceDocument("acme:1")
        document["customer"] = .object(["givenName": .string("Old"), "organizationName": .string("Kept? no: replaced")])
        document["barcode"] = .object(["format": .string("qr"), "message": .string("1"), "messageEncoding": .string("utf-8")])
        let order = ShopOrder(
            platform: .shopify,
            externalID: "1",
            fields: ["customer": .null, "status": .string("completed"), "merchant": .string("not the shop's to set")]
        )
        let merged = order.applied(to: document)
        #expect(merged["customer"] == nil)
        #expect(merged["status"] == .string("completed"))
        #expect(merged["merchant"] == document["merchant"])
        #expect(merged["barcode"] == document["barcode"])
    }

    @Test func aFulfillmentKeepsWhatTheShopDoesNotSayAndNeverMovesBack() {
        var document = ShopFixture.serviceDocument("acme:1")
        document["fulfillments"] = .array([
            .object(
                shipment([
                    "status": .string("delivered"), "deliveredAt": .string("2026-03-05T19:42:00Z"), "trackingNumber": .string("1Z1"),
                    "statusDescription": .string("Left at the door"), "notes": .string("the merchant's"),
                ]).fields
            ),
            .object([
                "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("store"), "status": .string("open"),
                "displayName": .string("Shop"),
            ]),
        ])
        let order = ShopOrder(
            platform: .shopify,
            externalID: "1",
            fulfillments: [shipment(["status": .string("onTheWay"), "trackingNumber": .string("1Z1"), "carrier": .string("UPS")])]
        )
        let merged = order.applied(to: document)
        let views = merged.fulfillmentViews
        #expect(views.count == 2)
        #expect(views[0].status == "delivered")
        #expect(views[0].statusDescription == "Left at the door")
        #expect(views[0].deliveredAt == "2026-03-05T19:42:00Z")
        #expect(views[0].carrier == "UPS")
        #expect(views[0].fields["notes"] == .string("the merchant's"))
        #expect(views[1].identifier == "store")
        #expect(order.applied(to: merged) == merged)
    }

    @Test func aNewStatusTakesTheShopsDescriptionAndANewNumberDropsTheOldParcelsNews() {
        var document = ShopFixture.serviceDocument("acme:1")
        document["fulfillments"] = .array([
            .object(
                shipment([
                    "status": .string("onTheWay"), "trackingNumber": .string("OLD"), "statusDescription": .string("Arrived at hub"),
                    "estimatedDeliveryAt": .string("2026-03-07T12:00:00Z"),
                ]).fields
            )
        ])
        let issue = ShopOrder(
            platform: .shopify,
            externalID: "1",
            fulfillments: [shipment(["status": .string("issue"), "trackingNumber": .string("OLD")])]
        )
        #expect(issue.applied(to: document).fulfillmentViews[0].statusDescription == nil)
        #expect(issue.applied(to: document).fulfillmentViews[0].estimatedDeliveryAt == "2026-03-07T12:00:00Z")
        let relabelled = ShopOrder(
            platform: .shopify,
            externalID: "1",
            fulfillments: [shipment(["status": .string("shipped"), "trackingNumber": .string("NEW")])]
        )
        let view = relabelled.applied(to: document).fulfillmentViews[0]
        #expect(view.status == "shipped")
        #expect(view.trackingNumber == "NEW")
        #expect(view.estimatedDeliveryAt == nil)
        #expect(view.statusDescription == nil)
    }

    @Test func anUnchangedOrderGivesBackTheSameDocument() throws {
        let body = try ShopFixture.bytes("shopify/orders-create.json")
        let update = try ShopPlatform.shopify.update(topic: "orders/updated", body: body, context: ShopFixture.context)
        let once = update.applied(to: ShopFixture.serviceDocument("acme:1"))
        #expect(once != ShopFixture.serviceDocument("acme:1"))
        #expect(update.applied(to: once) == once)
        // Shopify's updated_at moves on an orders/updated that changes nothing Wallet shows: still the same document.
        let touched = try ShopFixture.edited("shopify/orders-create.json") { $0["updated_at"] = .string("2026-03-04T08:00:00-05:00") }
        #expect(try ShopPlatform.shopify.update(topic: "orders/updated", body: touched, context: ShopFixture.context).applied(to: once) == once)
    }
}
