import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// Stalled parcels: a merchant that asks for it has each parcel in transit that no carrier event moved for its hours
/// moved to `issue`, once, with a new version pushed to its devices and the merchant's webhooks; off by default.
@Suite(.timeLimit(.minutes(3))) struct StalledParcelTests {
    static let operatorKey = "operator-key-for-tests-0123456789"

    static func parcel(_ id: String, _ number: String, status: String) -> JSONValue {
        .object([
            "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string(id), "status": .string(status),
            "trackingNumber": .string(number),
        ])
    }

    static func fulfillments(_ client: ServiceHarness.Client, _ order: ServiceHarness.OrderDetails) async throws -> [FulfillmentView] {
        try #require(try await client.store.order(type: order.type, id: order.id)).document.fulfillmentViews
    }

    static func operatorCall(
        _ client: ServiceHarness.Client,
        _ method: HTTPRequest.Method,
        _ uri: String,
        _ body: JSONValue
    )
        async throws -> TestResponse
    {
        try await client.merchant(method, uri, json: body, key: operatorKey)
    }

    @Test(arguments: StoreEngine.allCases)
    func aQuietParcelMovesToIssueOnceAndIsWatchedAgainWhenHeardOf(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(operatorKey: Self.operatorKey) { client in
            // The operator sets it: refused outside an hour to 30 days, or not a number; null turns it off.
            for bad: JSONValue in [.int(0), .int(721), .string("72")] {
                let refused = try await Self.operatorCall(
                    client,
                    .post,
                    "/api/v1/admin/merchants",
                    .object(["slug": .string("acme"), "displayName": .string("Acme"), "stalledParcelAfterHours": bad])
                )
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(String(buffer: refused.body).contains("stalledParcelAfterHours"))
            }
            let made = try await Self.operatorCall(
                client,
                .post,
                "/api/v1/admin/merchants",
                .object(["slug": .string("acme"), "displayName": .string("Acme"), "stalledParcelAfterHours": .int(72)])
            )
            #expect(made.status == .created)
            #expect(made.json["merchant"]?["stalledParcelAfterHours"] == .int(72))
            let acme = try await client.addKey("acme")
            let endpoint = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(WebhookAPITests.url)]), key: acme)
            let endpointID = try #require(endpoint.json["id"]?.stringValue)

            // In transit, delivered, and a parcel of the default merchant, which does not ask for it.
            let order = try await client.createOrder(id: "S-1", key: acme) { fields in
                fields["fulfillments"] = .array([
                    Self.parcel("parcel-1", "1Z999AA10123456784", status: "onTheWay"),
                    Self.parcel("parcel-2", "1Z999AA10123456785", status: "delivered"),
                ])
            }
            let other = try await client.createOrder(id: "S-2") { fields in
                fields["fulfillments"] = .array([Self.parcel("parcel-1", "1Z999AA10123456786", status: "onTheWay")])
            }
            #expect(try await client.register(order, device: "phone-1").status == .created)

            harness.clock.advance(71 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 0, "not yet")
            harness.clock.advance(2 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 1)
            let parcels = try await Self.fulfillments(client, order)
            #expect(parcels.map(\.status) == ["issue", "delivered"])
            #expect(parcels.first?.statusDescription == "No news from UPS for 3 days")
            let versions = try await client.store.versions(type: order.type, id: order.id)
            #expect(versions.map(\.author) == ["merchant:acme", "service"])
            let pushes = try await client.store.pushes(PushFilter(type: order.type, id: order.id), page: PageRequest(limit: 10)).records
            #expect(pushes.count == 1, "the device is told")
            #expect(try await Self.fulfillments(client, other).map(\.status) == ["onTheWay"], "off by default")

            // The merchant hears of the version and of the parcel.
            let deliveries = try await client.store.webhookDeliveries(type: order.type, id: order.id, limit: 20)
            #expect(Set(deliveries.map(\.event)) == [.orderCreated, .orderAddedToWallet, .orderUpdated, .fulfillmentStalled])
            let stalled = try #require(deliveries.first { $0.event == .fulfillmentStalled })
            #expect(stalled.endpointID == endpointID)
            let detail = try JSONValue.parse(Data(stalled.detail.utf8))
            #expect(detail["fulfillmentIdentifier"] == .string("parcel-1"))
            #expect(detail["trackingNumber"] == .string("1Z999AA10123456784"))
            #expect(detail["carrier"] == .string("UPS"))
            #expect(detail["version"] == .int(2))
            #expect(detail["lastHeardAt"] == .string(RFC3339.format(Date(timeIntervalSince1970: 1_795_342_530))))

            // Once: it stays in issue, and a later pass moves nothing.
            harness.clock.advance(3_600)
            #expect(try await client.service.flagStalledParcels() == 0)

            // Set off again by the merchant: news, so watched again, and moved again only after another quiet 72 hours.
            let resent = try await client.patch(
                order,
                .object([
                    "fulfillments": .array([
                        Self.parcel("parcel-1", "1Z999AA10123456784", status: "onTheWay"),
                        Self.parcel("parcel-2", "1Z999AA10123456785", status: "delivered"),
                    ])
                ]),
                key: acme
            )
            #expect(resent.status == .ok)
            harness.clock.advance(71 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 0)
            harness.clock.advance(2 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 1)

            // A carrier event is news; a change to another part of the order is not.
            func event(_ id: String, _ status: String) async throws {
                let answer = try await client.merchant(
                    .post,
                    "/api/v1/tracking-events",
                    json: .object([
                        "events": .array([
                            .object([
                                "id": .string(id), "trackingNumber": .string("1Z999AA10123456784"), "status": .string(status),
                                "occurredAt": .string(RFC3339.format(harness.clock.now)),
                            ])
                        ])
                    ]),
                    key: acme
                )
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            }
            try await event("e1", "in_transit")
            #expect(try await Self.fulfillments(client, order).first?.status == "onTheWay")
            harness.clock.advance(40 * 3_600)
            try await event("e2", "out_for_delivery")
            harness.clock.advance(40 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 0, "40 hours since the last event")
            let renumbered = try await client.patch(order, .object(["orderNumber": .string("#2002")]), key: acme)
            #expect(renumbered.status == .ok)
            harness.clock.advance(33 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 1)
            #expect(try await Self.fulfillments(client, order).first?.status == "issue")

            // Turned off: nothing more, whatever the time.
            let off = try await Self.operatorCall(client, .patch, "/api/v1/admin/merchants/acme", .object(["stalledParcelAfterHours": .null]))
            #expect(off.status == .ok)
            #expect(off.json["merchant"]?["stalledParcelAfterHours"] == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aSuspendedMerchantsParcelsAndAnotherMerchantsAreLeftAlone(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(operatorKey: Self.operatorKey) { client in
            for slug in ["acme", "bravo"] {
                let made = try await Self.operatorCall(
                    client,
                    .post,
                    "/api/v1/admin/merchants",
                    .object(["slug": .string(slug), "displayName": .string(slug), "stalledParcelAfterHours": .int(24)])
                )
                #expect(made.status == .created)
            }
            let acme = try await client.addKey("acme")
            let bravo = try await client.addKey("bravo")
            let acmeOrder = try await client.createOrder(id: "S-1", key: acme) { fields in
                fields["fulfillments"] = .array([Self.parcel("p", "1Z999AA10123456784", status: "shipped")])
            }
            let bravoOrder = try await client.createOrder(id: "S-1", key: bravo) { fields in
                fields["fulfillments"] = .array([Self.parcel("p", "1Z999AA10123456784", status: "outForDelivery")])
            }
            let label = try await client.createOrder(id: "S-2", key: bravo) { fields in
                fields["fulfillments"] = .array([Self.parcel("p", "1Z999AA10123456786", status: "processing")])
            }
            let suspended = try await Self.operatorCall(client, .patch, "/api/v1/admin/merchants/acme", .object(["status": .string("suspended")]))
            #expect(suspended.status == .ok)
            harness.clock.advance(25 * 3_600)
            // The same tracking number at two merchants: each parcel is its own merchant's; a suspended one's is not moved.
            #expect(try await client.service.flagStalledParcels() == 1)
            #expect(try await Self.fulfillments(client, acmeOrder).map(\.status) == ["shipped"])
            #expect(try await Self.fulfillments(client, bravoOrder).map(\.status) == ["issue"])
            #expect(try await Self.fulfillments(client, bravoOrder).first?.statusDescription == "No news from UPS for a day")

            // A label made a day ago (processing) is not in transit; shipped now, it is watched from now on.
            #expect(try await Self.fulfillments(client, label).map(\.status) == ["processing"])
            let shipped = try await client.patch(
                label,
                .object(["fulfillments": .array([Self.parcel("p", "1Z999AA10123456786", status: "shipped")])]),
                key: bravo
            )
            #expect(shipped.status == .ok)
            #expect(try await client.service.flagStalledParcels() == 0)
            harness.clock.advance(25 * 3_600)
            #expect(try await client.service.flagStalledParcels() == 1)
            #expect(try await Self.fulfillments(client, label).map(\.status) == ["issue"])
            #expect(try await Self.fulfillments(client, acmeOrder).map(\.status) == ["shipped"], "suspended still")
        }
    }
}
