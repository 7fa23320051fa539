import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops

/// WooCommerce's documented order payload (REST API v3, with the tracking plugins' meta) mapped field by field, and the
/// Wallet order it makes valid as Wallet reads it.
@Suite(.timeLimit(.minutes(5))) struct WooCommerceMappingTests {
    func order(_ body: [UInt8]) throws -> ShopOrder {
        guard case .order(let order) = try ShopPlatform.woocommerce.update(topic: "order.updated", body: body, context: ShopFixture.context)
        else { throw ShopPayloadError.unreadable("not an order") }
        return order
    }

    @Test func anOrderBecomesItsWalletFieldsOneByOne() throws {
        let order = try order(try ShopFixture.bytes("woocommerce/order-updated.json"))
        #expect(order.platform == .woocommerce)
        #expect(order.externalID == "727")
        #expect(order.orderNumber == "727")
        #expect(order.placedAt == RFC3339.parseDateTime("2026-03-02T15:20:11Z"))
        #expect(!order.paidWithApplePay)
        #expect(!order.cancelled)
        let expected: [String: JSONValue] = [
            "orderNumber": .string("727"),
            "lineItems": .array([
                // 16.80 and 3.20 tax for two, as the shopper saw them with tax included.
                .object([
                    "title": .string("Linen tea towel"), "subtitle": .string("Colour: Sage"), "quantity": .int(2),
                    "price": .object(["amount": .string("10.00"), "currency": .string("EUR")]), "sku": .string("TOWEL-LIN-SAGE"),
                ]),
                .object([
                    "title": .string("Enamel mug"), "quantity": .int(1),
                    "price": .object(["amount": .string("25.24"), "currency": .string("EUR")]),
                ]),
            ]),
            "payment": .object(["total": .object(["amount": .string("51.07"), "currency": .string("EUR")]), "status": .string("paid")]),
            "customer": .object([
                "givenName": .string("Grace"), "familyName": .string("Hopper"), "emailAddress": .string("grace@example.org"),
                "phoneNumber": .string("+49 30 5550100"),
            ]),
            "status": .string("completed"),
            "orderManagementURL": .string("https://shop.example.com/account/orders/727"),
        ]
        #expect(order.fields == expected)
    }

    @Test func theTrackingPluginsParcelsBecomeShippedFulfillmentsEachOnce() throws {
        let order = try order(try ShopFixture.bytes("woocommerce/order-updated.json"))
        #expect(
            order.fulfillments.map(\.fields) == [
                [
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("aftership-a1b2c3d4e5f60718293a4b5c6d7e8f90"),
                    "status": .string("shipped"), "carrier": .string("deutsche-post"), "trackingNumber": .string("RR123456785DE"),
                    "shippedAt": .string("2026-03-03T12:00:00Z"),
                ],
                [
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("wc-6b4f9a2c8e1d7f3a5c0b9e8d7a6f5c4b"),
                    "status": .string("shipped"), "carrier": .string("dhl"), "trackingNumber": .string("00340434161094042557"),
                    "shippedAt": .string("2026-03-03T10:00:00Z"),
                ],
            ]
        )
    }

    @Test func aCustomProvidersNameAndHTTPSLinkAreTakenAndAPlainHTTPLinkIsNot() throws {
        func parcel(_ link: String) throws -> FulfillmentView? {
            let body = try ShopFixture.edited("woocommerce/order-updated.json") { order in
                order["meta_data"] = .array([
                    .object([
                        "key": .string("_wc_shipment_tracking_items"),
                        "value": .array([
                            .object([
                                "tracking_provider": .string(""), "custom_tracking_provider": .string("Kurier Nord"),
                                "custom_tracking_link": .string(link), "tracking_number": .string("KN-552019"),
                                "date_shipped": .int(1_772_532_000),
                            ])
                        ]),
                    ])
                ])
            }
            return try order(body).fulfillments.first
        }
        let secure = try #require(try parcel("https://track.kurier.example/KN-552019"))
        #expect(secure.identifier == "wc-KN-552019")
        #expect(secure.carrier == "Kurier Nord")
        #expect(secure.trackingURL == "https://track.kurier.example/KN-552019")
        #expect(try parcel("http://track.kurier.example/KN-552019")?.trackingURL == nil)
        #expect(try parcel("javascript:alert(1)")?.trackingURL == nil)
    }

    @Test func theMappedOrderIsAValidWalletOrderAndMapsToTheSameBytesTwice() throws {
        let body = try ShopFixture.bytes("woocommerce/order-updated.json")
        let document = try order(body).applied(to: ShopFixture.serviceDocument("acme:wc:727"))
        let validation = document.validate()
        #expect(validation.problems.isEmpty, "\(validation.problems)")
        #expect(validation.warnings.isEmpty, "\(validation.warnings)")
        #expect(try order(body).applied(to: document).serialized == document.serialized)
    }

    @Test(arguments: [
        ("pending", "open", "pending"), ("on-hold", "open", "pending"), ("processing", "open", "paid"), ("completed", "completed", "paid"),
        ("cancelled", "cancelled", "voided"), ("failed", "cancelled", "declined"), ("refunded", "completed", "refunded"),
        ("checkout-draft", "open", "pending"),
    ])
    func statusesBecomeWalletsOrderAndPaymentStatus(woo: String, order status: String, payment: String) throws {
        let mapped = try order(try ShopFixture.edited("woocommerce/order-updated.json") { $0["status"] = .string(woo) })
        #expect(mapped.fields["status"] == .string(status))
        #expect(mapped.fields["payment"]?["status"] == .string(payment))
    }

    @Test func aPriceThatDoesNotDivideExactlyIsLeftOut() throws {
        let body = try ShopFixture.edited("woocommerce/order-updated.json") { order in
            order["prices_include_tax"] = .bool(false)
            order["line_items"] = .array([.object(["name": .string("Three for ten"), "quantity": .int(3), "subtotal": .string("10.00")])])
        }
        #expect(try order(body).fields["lineItems"] == .array([.object(["title": .string("Three for ten"), "quantity": .int(3)])]))
    }

    @Test func applePayIsRecognisedFromThePaymentMethod() throws {
        let body = try ShopFixture.edited("woocommerce/order-updated.json") { $0["payment_method_title"] = .string("Apple Pay (WooPayments)") }
        #expect(try order(body).paidWithApplePay)
    }

    @Test func aDeletedOrderIsCancelledAndOtherTopicsAreNotMapped() throws {
        let update = try ShopPlatform.woocommerce.update(
            topic: "order.deleted",
            body: try ShopFixture.bytes("woocommerce/order-deleted.json"),
            context: ShopFixture.context
        )
        #expect(update == .deleted(externalOrderID: "727"))
        let document = update.applied(to: ShopFixture.serviceDocument("acme:wc:727"))
        #expect(document["status"] == .string("cancelled"))
        #expect(update.applied(to: document) == document)
        #expect(throws: ShopPayloadError.unsupportedTopic("order.restored")) {
            try ShopPlatform.woocommerce.update(topic: "order.restored", body: Array("{}".utf8), context: ShopFixture.context)
        }
        // The ping WooCommerce sends when a webhook is saved is a form, not an order.
        #expect(throws: ShopPayloadError.self) {
            try ShopPlatform.woocommerce.update(topic: "order.created", body: Array("webhook_id=12".utf8), context: ShopFixture.context)
        }
    }
}
