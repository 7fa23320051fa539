import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops

/// UCP's documented order (`dev.ucp.shopping.order`) mapped field by field: line items, totals in minor units, the
/// append-only event log as parcels, expectations not yet shipped; and the Wallet order it makes valid.
@Suite(.timeLimit(.minutes(5))) struct UCPMappingTests {
    func order(_ body: [UInt8]) throws -> ShopOrder {
        try UCPWebhook.order(body: body, context: ShopFixture.context)
    }

    @Test func anOrderBecomesItsWalletFieldsOneByOne() throws {
        let order = try order(try ShopFixture.bytes("ucp/order.json"))
        #expect(order.platform == .ucp)
        #expect(order.externalID == "order_7Hq2Lx9")
        #expect(order.orderNumber == "A-20931")
        #expect(!order.cancelled)
        let expected: [String: JSONValue] = [
            "orderNumber": .string("A-20931"),
            "lineItems": .array([
                .object([
                    "title": .string("Trail boots"), "quantity": .int(1),
                    "price": .object(["amount": .string("129.00"), "currency": .string("USD")]),
                ]),
                .object([
                    "title": .string("Wool socks"), "quantity": .int(2),
                    "price": .object(["amount": .string("14.50"), "currency": .string("USD")]),
                ]),
            ]),
            "payment": .object(["total": .object(["amount": .string("178.61"), "currency": .string("USD")]), "status": .string("paid")]),
            "status": .string("open"),
            "orderManagementURL": .string("https://shop.example.com/account/orders/order_7Hq2Lx9"),
        ]
        #expect(order.fields == expected)
    }

    @Test func theEventLogBecomesAParcelAndTheUnshippedExpectationWaits() throws {
        let order = try order(try ShopFixture.bytes("ucp/order.json"))
        #expect(
            order.fulfillments.map(\.fields) == [
                [
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("ucp-9400111899223033005382"),
                    "status": .string("delivered"), "statusDescription": .string("Delivered to front door"),
                    "trackingNumber": .string("9400111899223033005382"), "carrier": .string("USPS"),
                    "trackingURL": .string("https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223033005382"),
                    "shippedAt": .string("2026-03-03T15:10:00Z"), "deliveredAt": .string("2026-03-05T16:02:00Z"),
                ],
                [
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("ucp-expectation-exp_2"),
                    "status": .string("processing"), "statusDescription": .string("Backordered: ships in about a week"),
                ],
            ]
        )
    }

    @Test func eventsAreReadInTimeOrderWhateverTheirPlaceInTheLog() throws {
        let body = try ShopFixture.edited("ucp/order.json") { order in
            var fulfillment = order["fulfillment"]?.objectValue ?? [:]
            fulfillment["events"] = .array((fulfillment["events"]?.arrayValue ?? []).reversed())
            order["fulfillment"] = .object(fulfillment)
        }
        #expect(try order(body).fulfillments == order(try ShopFixture.bytes("ucp/order.json")).fulfillments)
    }

    @Test(arguments: [
        ("shipped", "shipped"), ("in_transit", "onTheWay"), ("out_for_delivery", "outForDelivery"), ("failed_attempt", "issue"),
        ("undeliverable", "issue"), ("returned_to_sender", "issue"), ("canceled", "cancelled"),
    ])
    func eventTypesBecomeWalletsShippingStatus(type: String, status: String) throws {
        let body = try ShopFixture.edited("ucp/order.json") { order in
            var fulfillment = order["fulfillment"]?.objectValue ?? [:]
            var events = fulfillment["events"]?.arrayValue ?? []
            events.removeLast()
            var last = events.removeLast().objectValue ?? [:]
            last["type"] = .string(type)
            fulfillment["events"] = .array(events + [.object(last)])
            order["fulfillment"] = .object(fulfillment)
        }
        #expect(try order(body).fulfillments.first?.status == status)
    }

    @Test func anUnknownEventTypeChangesNothing() throws {
        let body = try ShopFixture.edited("ucp/order.json") { order in
            var fulfillment = order["fulfillment"]?.objectValue ?? [:]
            var events = fulfillment["events"]?.arrayValue ?? []
            var extra = events.last?.objectValue ?? [:]
            extra["id"] = .string("fe_5")
            extra["type"] = .string("scanned_at_locker")
            extra["occurred_at"] = .string("2026-03-05T17:00:00Z")
            events.append(.object(extra))
            fulfillment["events"] = .array(events)
            order["fulfillment"] = .object(fulfillment)
        }
        #expect(try order(body).fulfillments.first?.status == "delivered")
    }

    @Test func theMappedOrderIsAValidWalletOrderAndMapsToTheSameBytesTwice() throws {
        let body = try ShopFixture.bytes("ucp/order.json")
        let document = try order(body).applied(to: ShopFixture.serviceDocument("acme:ucp:order_7Hq2Lx9"))
        let validation = document.validate()
        #expect(validation.problems.isEmpty, "\(validation.problems)")
        #expect(try order(body).applied(to: document).serialized == document.serialized)
    }

    @Test func aFullRefundAndACancellationHaveTheirStatus() throws {
        let refunded = try ShopFixture.edited("ucp/order.json") { order in
            order["adjustments"] = .array([
                .object([
                    "id": .string("adj_1"), "type": .string("refund"), "status": .string("completed"),
                    "occurred_at": .string("2026-03-05T18:00:00Z"), "totals": .array([.object(["type": .string("total"), "amount": .int(-17861)])]),
                ])
            ])
        }
        #expect(try order(refunded).fields["payment"]?["status"] == .string("refunded"))
        let cancelled = try ShopFixture.edited("ucp/order.json") { order in
            order["adjustments"] = .array([
                .object([
                    "id": .string("adj_2"), "type": .string("cancellation"), "status": .string("completed"),
                    "occurred_at": .string("2026-03-02T19:00:00Z"),
                ])
            ])
        }
        #expect(try order(cancelled).fields["status"] == .string("cancelled"))
        #expect(try order(cancelled).cancelled)
    }

    @Test func measuredQuantitiesAndZeroExponentCurrenciesAreExact() throws {
        let body = try ShopFixture.edited("ucp/order.json") { order in
            order["currency"] = .string("JPY")
            order["line_items"] = .array([
                .object([
                    "id": .string("li_rice"),
                    "item": .object([
                        "id": .string("rice"), "title": .string("Rice"), "price": .int(480),
                        "quantity_unit": .object(["unit": .string("KGM"), "scale": .int(2)]),
                    ]),
                    "quantity": .object(["total": .int(150), "fulfilled": .int(0)]),
                ])
            ])
            order["totals"] = .array([.object(["type": .string("total"), "amount": .int(720)])])
        }
        let mapped = try order(body)
        #expect(
            mapped.fields["lineItems"]
                == .array([
                    .object([
                        "title": .string("Rice"), "quantity": .double(1.5), "price": .object(["amount": .string("480"), "currency": .string("JPY")]),
                    ])
                ])
        )
        #expect(mapped.fields["payment"]?["total"] == .object(["amount": .string("720"), "currency": .string("JPY")]))
    }
}
