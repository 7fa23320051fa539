import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops
import WalletOrdersTracking

/// Shopify's documented payloads (Tests/Fixtures/shops/shopify) mapped field by field, and the Wallet order they make
/// valid as Wallet reads it.
@Suite(.timeLimit(.minutes(5))) struct ShopifyMappingTests {
    func order(_ body: [UInt8], topic: String = "orders/create") throws -> ShopOrder {
        guard case .order(let order) = try ShopPlatform.shopify.update(topic: topic, body: body, context: ShopFixture.context) else {
            throw ShopPayloadError.unreadable("not an order")
        }
        return order
    }

    @Test func anOrderBecomesItsWalletFieldsOneByOne() throws {
        let order = try order(try ShopFixture.bytes("shopify/orders-create.json"))
        #expect(order.platform == .shopify)
        #expect(order.externalID == "5820194783521")
        #expect(order.orderNumber == "#1042")
        #expect(order.placedAt == RFC3339.parseDateTime("2026-03-02T15:14:05Z"))
        #expect(!order.paidWithApplePay)
        #expect(!order.cancelled)
        #expect(order.fulfillments.isEmpty)
        let expected: [String: JSONValue] = [
            "orderNumber": .string("#1042"),
            "lineItems": .array([
                .object([
                    "title": .string("Single-origin coffee"), "subtitle": .string("340 g / Whole bean"), "quantity": .int(2),
                    "price": .object(["amount": .string("18.00"), "currency": .string("USD")]), "sku": .string("COF-340-WB"),
                ]),
                .object([
                    "title": .string("Pour-over kettle"), "quantity": .int(1),
                    "price": .object(["amount": .string("68.00"), "currency": .string("USD")]),
                ]),
            ]),
            "payment": .object([
                "total": .object(["amount": .string("112.90"), "currency": .string("USD")]), "status": .string("paid"),
            ]),
            "customer": .object([
                "givenName": .string("Ada"), "familyName": .string("Lovelace"), "emailAddress": .string("ada@example.com"),
                "phoneNumber": .string("+1 217 555 0100"),
            ]),
            "status": .string("open"),
            "orderManagementURL": .string("https://shop.example.com/account/orders/5820194783521"),
        ]
        #expect(order.fields == expected)
    }

    @Test func theOrderStatusLinkWithItsKeyIsNeverTheManagementURL() throws {
        let body = try ShopFixture.bytes("shopify/orders-create.json")
        let withTemplate = try order(body)
        #expect(!JSONValue.object(withTemplate.fields).serialized().contains(Data("authenticate?key".utf8)))
        // Without a template the merchant's own link stays: the field is not the shop's to set.
        let context = ShopMappingContext(now: ShopFixture.now)
        guard case .order(let plain) = try ShopPlatform.shopify.update(topic: "orders/updated", body: body, context: context) else {
            Issue.record("not an order")
            return
        }
        #expect(plain.fields["orderManagementURL"] == nil)
        #expect(plain.applied(to: ShopFixture.serviceDocument("acme:1042"))["orderManagementURL"] == .string("https://shop.example.com/account"))
    }

    @Test func theMappedOrderIsAValidWalletOrder() throws {
        let order = try order(try ShopFixture.bytes("shopify/orders-create.json"))
        let document = order.applied(to: ShopFixture.serviceDocument("acme:shopify:5820194783521"))
        let validation = document.validate()
        #expect(validation.problems.isEmpty, "\(validation.problems)")
        #expect(validation.warnings.isEmpty, "\(validation.warnings)")
    }

    @Test func mappingTheSamePayloadTwiceGivesTheSameBytes() throws {
        let body = try ShopFixture.bytes("shopify/orders-create.json")
        let base = ShopFixture.serviceDocument("acme:1042")
        let once = try order(body).applied(to: base)
        #expect(try order(body) == order(body))
        #expect(try order(body).applied(to: once) == once)
        #expect(try order(body).applied(to: once).serialized == once.serialized)
    }

    @Test(arguments: [
        ("pending", "pending"), ("authorized", "authorized"), ("partially_paid", "pending"), ("paid", "paid"),
        ("partially_refunded", "paid"), ("refunded", "refunded"), ("voided", "voided"), ("expired", "voided"), ("new_word", "pending"),
    ])
    func financialStatusBecomesWalletsPaymentStatus(shopify: String, wallet: String) throws {
        let body = try ShopFixture.edited("shopify/orders-create.json") { $0["financial_status"] = .string(shopify) }
        #expect(try order(body).fields["payment"]?["status"] == .string(wallet))
    }

    @Test func cancelledAndClosedOrdersHaveTheirStatus() throws {
        let cancelled = try order(
            try ShopFixture.edited("shopify/orders-create.json") { $0["cancelled_at"] = .string("2026-03-02T12:00:00-05:00") },
            topic: "orders/cancelled"
        )
        #expect(cancelled.cancelled)
        #expect(cancelled.fields["status"] == .string("cancelled"))
        let closed = try order(try ShopFixture.edited("shopify/orders-create.json") { $0["closed_at"] = .string("2026-03-09T12:00:00-05:00") })
        #expect(closed.fields["status"] == .string("completed"))
    }

    @Test(arguments: [
        (["shopify_payments"], nil as String?, false), (["Apple Pay"], nil, true), (["apple_pay"], nil, true),
        (["shopify_payments"], "apple_pay", true), (["shopify_payments"], "google_pay", false),
    ])
    func applePayIsRecognisedFromTheGatewayOrTheCardsWallet(gateways: [String], wallet: String?, paid: Bool) throws {
        let body = try ShopFixture.edited("shopify/orders-create.json") { order in
            order["payment_gateway_names"] = .array(gateways.map(JSONValue.string))
            order["gateway"] = .string(gateways[0])
            if let wallet { order["payment_details"] = .object(["credit_card_wallet": .string(wallet)]) }
        }
        #expect(try order(body).paidWithApplePay == paid)
    }

    @Test func aFulfillmentBecomesAShippingFulfillment() throws {
        guard
            case .fulfillment(let orderID, let view) = try ShopPlatform.shopify.update(
                topic: "fulfillments/create",
                body: try ShopFixture.bytes("shopify/fulfillments-create.json"),
                context: ShopFixture.context
            )
        else {
            Issue.record("not a fulfillment")
            return
        }
        #expect(orderID == "5820194783521")
        #expect(
            view.fields == [
                "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("shopify-4751934062625"),
                "status": .string("shipped"), "carrier": .string("UPS"), "trackingNumber": .string("1Z999AA10123456784"),
                "trackingURL": .string("https://www.ups.com/WebTracking?loc=en_US&requester=ST&trackNums=1Z999AA10123456784"),
                "shippedAt": .string("2026-03-03T14:30:00Z"),
            ]
        )
    }

    @Test func anOrderTwoEventsAndTheirFulfillmentMakeADeliveredValidOrder() throws {
        let context = ShopFixture.context
        var document = try order(try ShopFixture.bytes("shopify/orders-create.json")).applied(to: ShopFixture.serviceDocument("acme:1042"))
        for (topic, file) in [
            ("fulfillments/create", "fulfillments-create"), ("fulfillment_events/create", "fulfillment-events-in-transit"),
            ("fulfillment_events/create", "fulfillment-events-delivered"),
        ] {
            document = try ShopPlatform.shopify.update(topic: topic, body: try ShopFixture.bytes("shopify/\(file).json"), context: context)
                .applied(to: document)
        }
        let fulfillment = try #require(document.fulfillmentViews.first)
        #expect(document.fulfillmentViews.count == 1)
        #expect(fulfillment.status == "delivered")
        #expect(fulfillment.deliveredAt == "2026-03-05T19:42:00Z")
        #expect(fulfillment.shippedAt == "2026-03-03T14:30:00Z")
        #expect(fulfillment.estimatedDeliveryAt == "2026-03-06T01:00:00Z")
        #expect(fulfillment.statusDescription == "Delivered, front door")
        #expect(document.validate().problems.isEmpty, "\(document.validate().problems)")
        // The in-transit event again, late: delivered stays.
        let late = try ShopPlatform.shopify.update(
            topic: "fulfillment_events/create",
            body: try ShopFixture.bytes("shopify/fulfillment-events-in-transit.json"),
            context: context
        )
        #expect(late.applied(to: document) == document)
        // An orders/updated whose fulfillment Shopify still shows in transit moves nothing back either.
        let updated = try ShopFixture.edited("shopify/orders-create.json") { order in
            var fulfillment = (try? ShopFixture.object("shopify/fulfillments-create.json")) ?? [:]
            fulfillment["shipment_status"] = .string("in_transit")
            order["fulfillments"] = .array([.object(fulfillment)])
        }
        let again = try order(updated, topic: "orders/updated").applied(to: document)
        #expect(again.fulfillmentViews.first?.status == "delivered")
        #expect(again.fulfillmentViews.first?.deliveredAt == "2026-03-05T19:42:00Z")
    }

    @Test(arguments: [
        ("label_printed", TrackingStatus.infoReceived), ("carrier_picked_up", .inTransit), ("in_transit", .inTransit),
        ("out_for_delivery", .outForDelivery), ("ready_for_pickup", .availableForPickup), ("attempted_delivery", .failedAttempt),
        ("delivered", .delivered), ("failure", .exception), ("delayed", .exception),
    ])
    func fulfillmentEventStatusesUseTheTrackingVocabulary(shopify: String, status: TrackingStatus) throws {
        let body = try ShopFixture.edited("shopify/fulfillment-events-in-transit.json") { $0["status"] = .string(shopify) }
        let update = try ShopPlatform.shopify.update(topic: "fulfillment_events/create", body: body, context: ShopFixture.context)
        guard case .fulfillmentEvent(let event) = update else {
            Issue.record("not an event: \(update)")
            return
        }
        #expect(event.event.status == status)
        #expect(event.fulfillmentIdentifier == "shopify-4751934062625")
        #expect(event.event.id == "shopify-event-26511892119585")
    }

    @Test func aConfirmingEventAnImplausibleOneAndAnUnknownTopicChangeNothing() throws {
        let confirmed = try ShopFixture.edited("shopify/fulfillment-events-in-transit.json") { $0["status"] = .string("confirmed") }
        let future = try ShopFixture.edited("shopify/fulfillment-events-in-transit.json") { $0["happened_at"] = .string("2031-01-01T00:00:00Z") }
        for body in [confirmed, future] {
            let update = try ShopPlatform.shopify.update(topic: "fulfillment_events/create", body: body, context: ShopFixture.context)
            #expect(update.applied(to: ShopFixture.serviceDocument("acme:1")) == ShopFixture.serviceDocument("acme:1"))
            #expect(update.externalOrderID == "5820194783521")
        }
        #expect(throws: ShopPayloadError.unsupportedTopic("products/update")) {
            try ShopPlatform.shopify.update(topic: "products/update", body: Array("{}".utf8), context: ShopFixture.context)
        }
        #expect(throws: ShopPayloadError.self) {
            try ShopPlatform.shopify.update(topic: "orders/updated", body: Array(##"{"name": "#1"}"##.utf8), context: ShopFixture.context)
        }
    }

    @Test func aDeletedOrderIsCancelled() throws {
        let update = try ShopPlatform.shopify.update(
            topic: "orders/delete",
            body: Array(#"{"id": 5820194783521}"#.utf8),
            context: ShopFixture.context
        )
        #expect(update == .deleted(externalOrderID: "5820194783521"))
        #expect(update.applied(to: ShopFixture.serviceDocument("acme:1"))["status"] == .string("cancelled"))
    }
}
