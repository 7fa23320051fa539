import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// Logistics partners' keys and tracking events, through the merchant API on both engines.
@Suite(.timeLimit(.minutes(5))) struct PartnerTrackingTests {
    /// A partner `name` for `merchants`, with a key; answers the key.
    static func addPartner(_ name: String, for merchants: [String], _ client: ServiceHarness.Client) async throws -> String {
        let registry = MerchantRegistry(service: client.service)
        _ = try await registry.addPartner(name: name, merchantSlugs: merchants)
        let key = try await registry.createPartnerKey(for: name).text
        try await client.service.merchants.reload()
        return key
    }

    /// Creates `id` for the merchant of `key` with one shipping fulfillment following `trackingNumber`.
    static func order(
        _ id: String,
        tracking trackingNumber: String?,
        carrier: String = "UPS",
        key: String,
        _ client: ServiceHarness.Client
    ) async throws -> ServiceHarness.OrderDetails {
        try await client.createOrder(id: id, key: key) { fields in
            var fulfillment: [String: JSONValue] = [
                "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
                "status": .string("processing"), "carrier": .string(carrier),
            ]
            if let trackingNumber { fulfillment["trackingNumber"] = .string(trackingNumber) }
            fields["fulfillments"] = .array([.object(fulfillment)])
        }
    }

    static func events(_ events: [[String: String]]) -> JSONValue {
        .object(["events": .array(events.map { .object($0.mapValues(JSONValue.string)) })])
    }

    static func results(_ response: TestResponse) -> [JSONValue] {
        (try? JSONValue.parse(Data(buffer: response.body)))?["results"]?.arrayValue ?? []
    }

    static func fulfillment(_ client: ServiceHarness.Client, _ order: ServiceHarness.OrderDetails) async throws -> [String: JSONValue] {
        let stored = try #require(try await client.store.order(type: order.type, id: order.id))
        return stored.document["fulfillments"]?.arrayValue?.first?.objectValue ?? [:]
    }

    @Test(arguments: StoreEngine.allCases)
    func aPartnerKeyChangesAFulfillmentAndTheDeviceIsPushedTheNewVersion(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run { client in
            let acme = try await client.addMerchant("acme")
            let partner = try await Self.addPartner("parcelco", for: ["acme"], client)
            #expect(partner.hasPrefix("wo_partner_"))
            let order = try await Self.order("1001", tracking: "1Z001", key: acme, client)
            #expect(order.id == "acme:1001")
            #expect(try await client.register(order, device: "device-1").status == .created)

            let changed = try await client.patch(
                order,
                .object([
                    "fulfillments": .array([
                        .object([
                            "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
                            "status": .string("outForDelivery"), "carrier": .string("UPS"),
                            "trackingNumber": .string("1Z001"), "notes": .string("Leave at the door"),
                        ])
                    ])
                ]),
                key: partner
            )
            #expect(changed.status == .ok, "\(String(buffer: changed.body))")
            let answer = try JSONValue.parse(Data(buffer: changed.body))
            #expect(answer["version"] == .int(2))
            #expect(answer["pushesQueued"] == .int(1))
            #expect(answer["order"]?["payment"] == nil, "a partner is not shown the merchant's payment")
            #expect(try await Self.fulfillment(client, order)["status"] == .string("outForDelivery"))

            // The device is told, and fetches the version the partner made.
            let pushes = try await client.store.pushes(PushFilter(), page: PageRequest(limit: 10))
            #expect(pushes.records.contains { $0.orderIdentifier == order.id && $0.status == PushStatus.pending })
            let fetched = try await client.fetch(order)
            #expect(fetched.status == .ok)
            let versions = try await client.store.versions(type: order.type, id: order.id)
            #expect(versions.map(\.author) == ["merchant:acme", "partner:parcelco"])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aPartnerKeyIsRefusedTheMerchantsFieldsOtherMerchantsAndTheRestOfTheAPI(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run { client in
            let acme = try await client.addMerchant("acme")
            let globex = try await client.addMerchant("globex")
            let partner = try await Self.addPartner("parcelco", for: ["acme"], client)
            let own = try await Self.order("1001", tracking: "1Z001", key: acme, client)
            let other = try await Self.order("2001", tracking: "1Z999", key: globex, client)

            let payment = try await client.patch(own, .object(["payment": .object(["status": .string("refunded")])]), key: partner)
            #expect(payment.status == .forbidden)
            let problems = (try JSONValue.parse(Data(buffer: payment.body)))["problems"]?.arrayValue ?? []
            #expect(problems.map { $0["path"] } == [.string("payment")])
            let items = try await client.patch(
                own,
                .object([
                    "fulfillments": .array([
                        .object([
                            "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
                            "status": .string("delivered"), "lineItems": .array([]),
                        ])
                    ])
                ]),
                key: partner
            )
            #expect(items.status == .forbidden)
            let itemProblems = (try JSONValue.parse(Data(buffer: items.body)))["problems"]?.arrayValue ?? []
            #expect(itemProblems.contains { $0["path"] == .string("fulfillments[0].lineItems") })
            // Leaving out a field is changing it too: the carrier was the merchant's, but a partner may change it.
            #expect(itemProblems.allSatisfy { $0["path"] != .string("fulfillments[0].carrier") })
            #expect(try await client.store.versions(type: own.type, id: own.id).count == 1, "nothing written")

            // Another merchant's order answers as a missing one, and its tracking number moves nothing.
            let foreign = try await client.patch(other, .object(["status": .string("completed")]), key: partner)
            #expect(foreign.status == .notFound)
            let missing = try await client.merchant(
                .patch,
                "/api/v1/orders/\(other.type)/globex:9999",
                json: .object(["status": .string("completed")]),
                contentType: "application/merge-patch+json",
                key: partner
            )
            #expect(missing.status == .notFound)
            #expect(String(buffer: foreign.body) == String(buffer: missing.body))
            let tracked = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    ["id": "e1", "trackingNumber": "1Z999", "status": "delivered", "occurredAt": "2026-11-25T10:00:00Z"]
                ]),
                key: partner
            )
            #expect(tracked.status == .ok)
            #expect(Self.results(tracked).first?["result"] == .string("pending"), "nothing applied, nothing revealed")
            #expect(try await Self.fulfillment(client, other)["status"] == .string("processing"))

            // Every merchant API call but the two a partner may make.
            let calls: [(HTTPRequest.Method, String)] = [
                (.get, "/api/v1/orders"), (.post, "/api/v1/orders"), (.post, "/api/v1/orders/validate"),
                (.get, "/api/v1/orders/\(own.type)/\(own.id)"), (.put, "/api/v1/orders/\(own.type)/\(own.id)"),
                (.get, "/api/v1/orders/\(own.type)/\(own.id)/package"),
                (.get, "/api/v1/orders/\(own.type)/\(own.id)/registrations"),
                (.post, "/api/v1/orders/\(own.type)/\(own.id)/links"), (.post, "/api/v1/orders/import"),
                (.get, "/api/v1/orders/export"), (.get, "/api/v1/webhooks"), (.post, "/api/v1/webhooks"),
                (.get, "/api/v1/pushes"), (.get, "/api/v1/logs"), (.get, "/api/v1/admin/merchants"),
            ]
            for (method, path) in calls {
                let answer = try await client.merchant(method, path, json: .object([:]), key: partner)
                #expect([.forbidden, .notFound].contains(answer.status), "\(method) \(path): \(answer.status)")
                #expect(answer.status != .notFound || path.hasPrefix("/api/v1/admin"), "\(method) \(path)")
            }
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func eventsApplyOnceInTheOrderTheyHappenedAndWaitForNumbersNoOrderHoldsYet(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        // The last events below happened three days and three hours after the harness's clock starts: a day on, they
        // are in the past, as carriers' events are.
        harness.clock.advance(86_400)
        try await harness.run { client in
            let acme = try await client.addMerchant("acme")
            let partner = try await Self.addPartner("parcelco", for: ["acme"], client)
            let order = try await Self.order("1001", tracking: "1Z001", key: acme, client)
            #expect(try await client.register(order, device: "device-1").status == .created)

            // A burst, out of order: one version, the latest status, one push.
            let burst = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    [
                        "id": "e2", "trackingNumber": "1Z001", "carrier": "ups", "status": "out_for_delivery",
                        "occurredAt": "2026-11-25T08:00:00Z", "estimatedDeliveryAt": "2026-11-25T14:00:00Z",
                        "estimatedDeliveryWindowDuration": "PT2H",
                    ],
                    ["id": "e1", "trackingNumber": "1Z001", "status": "in_transit", "occurredAt": "2026-11-24T18:00:00Z"],
                    ["id": "e1", "trackingNumber": "1Z001", "status": "in_transit", "occurredAt": "2026-11-24T18:00:00Z"],
                    ["id": "bad", "trackingNumber": "1Z001", "status": "lost", "occurredAt": "2026-11-24T18:00:00Z"],
                ]),
                key: partner
            )
            #expect(burst.status == .ok, "\(String(buffer: burst.body))")
            let results = Self.results(burst)
            #expect(results.map { $0["result"] } == ["applied", "applied", "duplicate", "invalid"].map(JSONValue.string))
            let orders = results[0]["orders"]?.arrayValue ?? []
            #expect(orders.first?["orderIdentifier"] == .string("acme:1001"))
            #expect(orders.first?["merchant"] == .string("acme"))
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 2, "one version for the burst")
            var fulfillment = try await Self.fulfillment(client, order)
            #expect(fulfillment["status"] == .string("outForDelivery"))
            #expect(fulfillment["shippedAt"] == .string("2026-11-24T18:00:00Z"))
            #expect(fulfillment["estimatedDeliveryWindowDuration"] == .string("PT2H"))
            let counts = try await client.store.pushCounts()
            #expect(counts[.pending] == 1, "one push for the device")

            // The same event again, and one older than what the order shows.
            let again = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    ["id": "e2", "trackingNumber": "1Z001", "status": "out_for_delivery", "occurredAt": "2026-11-25T08:00:00Z"],
                    ["id": "e0", "trackingNumber": "1Z001", "status": "info_received", "occurredAt": "2026-11-24T09:00:00Z"],
                ]),
                key: partner
            )
            #expect(Self.results(again).map { $0["result"] } == ["duplicate", "stale"].map(JSONValue.string))
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 2)

            // Early: no order holds the number yet. The merchant's key may send events too, about its own orders.
            let early = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    ["id": "e9", "trackingNumber": "1Z002", "status": "delivered", "occurredAt": "2026-11-25T12:00:00Z"]
                ]),
                key: partner
            )
            #expect(Self.results(early).first?["result"] == .string("pending"))
            let later = try await Self.order("1002", tracking: "1Z002", key: acme, client)
            fulfillment = try await Self.fulfillment(client, later)
            #expect(fulfillment["status"] == .string("delivered"), "applied when the merchant added the number")
            #expect(fulfillment["deliveredAt"] == .string("2026-11-25T12:00:00Z"))
            let versions = try await client.store.versions(type: later.type, id: later.id)
            #expect(versions.map(\.author) == ["merchant:acme", "partner:parcelco"])
            let resent = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    ["id": "e9", "trackingNumber": "1Z002", "status": "delivered", "occurredAt": "2026-11-25T12:00:00Z"]
                ]),
                key: partner
            )
            #expect(Self.results(resent).first?["result"] == .string("duplicate"))

            let mine = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: Self.events([
                    ["id": "m1", "trackingNumber": "1Z001", "status": "delivered", "occurredAt": "2026-11-25T13:00:00Z"]
                ]),
                key: acme
            )
            #expect(Self.results(mine).first?["orders"]?.arrayValue?.first?["orderIdentifier"] == .string("1001"))
            #expect(try await Self.fulfillment(client, order)["status"] == .string("delivered"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theBoundOnWaitingEventsCountsWhatIsStoredAndARefusedEventIsNotKept(engine: StoreEngine) async throws {
        // Seeding 100,000 events takes minutes on a loaded machine, while the test client's connection waits: the
        // server must not close it as idle meanwhile (what this test checks is not the idle timeout).
        var limits = ClientLimits()
        limits.idleTimeout = nil
        try await ServiceHarness(engine).run(limits: limits) { client in
            _ = try await client.addMerchant("acme")
            let key = try await Self.addPartner("parcelco", for: ["acme"], client)
            let source = "partner:\(try await MerchantRegistry(service: client.service).partner("parcelco").id)"
            // As many events as the bound allows, kept and not settled: a request in flight, or one an instance that
            // stopped left `received`.
            for batch in 0..<(OrderService.maxPendingTrackingEvents / 1_000) {
                let events = (0..<1_000).map { offset in
                    TrackingEventRecord(source: source, id: "kept-\(batch)-\(offset)", trackingNumber: "1Z-\(offset)", body: Data("{}".utf8))
                }
                _ = try await client.store.receiveTrackingEvents(events)
            }
            let early = Self.events([
                ["id": "e1", "trackingNumber": "1Z404", "status": "in_transit", "occurredAt": "2026-11-21T18:00:00Z"]
            ])
            for _ in 0..<2 {
                let refused = Self.results(try await client.merchant(.post, "/api/v1/tracking-events", json: early, key: key))
                #expect(refused.first?["result"] == .string("invalid"), "\(refused)")
                #expect(refused.first?["problems"]?.arrayValue?.first?["path"] == .string("trackingNumber"))
                // Not kept: the store holds what it held, and the same event sent again is refused again, no duplicate.
                #expect(try await client.store.waitingTrackingEventCount(source: source) == OrderService.maxPendingTrackingEvents)
            }
            try await client.store.forgetTrackingEvents((0..<10).map { (source, "kept-0-\($0)") })
            let waits = Self.results(try await client.merchant(.post, "/api/v1/tracking-events", json: early, key: key))
            #expect(waits.first?["result"] == .string("pending"), "\(waits)")
            #expect(try await client.store.waitingTrackingEventCount(source: source) == OrderService.maxPendingTrackingEvents - 9)
        }
    }

    @Test func aTrackingRequestIsBoundedAndNamesItsProblems() async throws {
        try await ServiceHarness().run { client in
            let acme = try await client.addMerchant("acme")
            let empty = try await client.merchant(.post, "/api/v1/tracking-events", json: .object(["events": .array([])]), key: acme)
            #expect(empty.status == .badRequest)
            let many = JSONValue.object([
                "events": .array(Array(repeating: .object([:]), count: OrderService.maxTrackingEventsPerRequest + 1))
            ])
            #expect(try await client.merchant(.post, "/api/v1/tracking-events", json: many, key: acme).status == .badRequest)
            let shape = try await client.merchant(.post, "/api/v1/tracking-events", json: .array([]), key: acme)
            #expect(shape.status == .badRequest)
            #expect(try await client.merchant(.post, "/api/v1/tracking-events", json: .object(["events": .array([])])).status == .badRequest)
        }
    }
}

/// Partners through the operator's HTTP API.
@Suite(.timeLimit(.minutes(5))) struct PartnerOperatorAPITests {
    static let operatorKey = "operator-key-for-tests-0123456789"

    @Test(arguments: StoreEngine.allCases)
    func theOperatorsAPIAddsPartnersAndMakesAndRevokesTheirKeysNeverShowingSecrets(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: Self.operatorKey) { client in
            func operate(_ method: HTTPRequest.Method, _ path: String, _ json: JSONValue? = nil) async throws -> TestResponse {
                try await client.merchant(method, "/api/v1/admin/partners\(path)", json: json, key: Self.operatorKey)
            }
            _ = try await client.addMerchant("acme")
            let secret = "aftership-secret-0123456789"
            let made = try await operate(
                .post,
                "",
                .object([
                    "name": .string("acme-aftership"), "merchants": .array([.string("acme")]),
                    "provider": .string("aftership"), "providerSecret": .string(secret),
                ])
            )
            #expect(made.status == .created, "\(String(buffer: made.body))")
            #expect(made.json["partner"]?["provider"] == .string("aftership"))
            let unknown = try await operate(.post, "", .object(["name": .string("nobody"), "merchants": .array([.string("ghost")])]))
            #expect(unknown.status == .badRequest && unknown.json["problems"]?.arrayValue?.first?["path"] == .string("merchants[0]"))
            #expect(
                try await operate(.post, "", .object(["name": .string("acme-aftership"), "merchants": .array([.string("acme")])])).status
                    == .conflict
            )

            let created = try await operate(.post, "/acme-aftership/keys")
            #expect(created.status == .created && created.headers[.cacheControl] == "no-store")
            let key = try #require(created.json["key"]?.stringValue)
            let keyID = try #require(created.json["id"]?.stringValue)
            let shown = try await operate(.get, "/acme-aftership")
            let text = String(buffer: shown.body)
            #expect(shown.json["keys"]?.arrayValue?.map { $0["id"] } == [.string(keyID)])
            #expect(!text.contains(key) && !text.contains("hash") && !text.contains(secret), "\(text)")
            #expect(!String(buffer: try await operate(.get, "").body).contains(secret))

            let events = PartnerTrackingTests.events([
                ["id": "e1", "trackingNumber": "1Z1", "status": "in_transit", "occurredAt": "2026-11-25T10:00:00Z"]
            ])
            #expect(try await client.merchant(.post, "/api/v1/tracking-events", json: events, key: key).status == .ok)
            #expect(try await operate(.delete, "/acme-aftership/keys/\(keyID)").status == .ok)
            #expect(try await client.merchant(.post, "/api/v1/tracking-events", json: events, key: key).status == .unauthorized)
            #expect(try await operate(.delete, "/acme-aftership/keys/\(keyID)").status == .notFound)
        }
    }
}
