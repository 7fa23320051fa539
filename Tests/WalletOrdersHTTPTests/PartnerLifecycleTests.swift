import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// What an operator does to a partner after adding it (suspend its merchant, unlink it from one, give its provider a
/// new secret, remove it), and what the partner's keys and provider webhook may do afterwards, on both engines.
@Suite(.timeLimit(.minutes(5))) struct PartnerLifecycleTests {
    static let operatorKey = PartnerOperatorAPITests.operatorKey
    static let aftership = TrackingHookTests.providers[0]

    /// The fulfillment of `order` as a partner sends it, with `status`.
    static func progress(_ status: String, tracking: String = aftership.trackingNumber) -> JSONValue {
        .object([
            "fulfillments": .array([
                .object([
                    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
                    "status": .string(status), "carrier": .string(aftership.carrier), "trackingNumber": .string(tracking),
                ])
            ])
        ])
    }

    static func suspend(_ slug: String, _ status: MerchantStatus, _ client: ServiceHarness.Client) async throws {
        var change = MerchantChange()
        change.status = status
        _ = try await MerchantRegistry(service: client.service).update(slug, change)
        try await client.service.merchants.reload()
    }

    @Test(arguments: StoreEngine.allCases)
    func aSuspendedMerchantsPartnerChangesNoneOfItsOrdersUntilTheMerchantIsResumed(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        // The fixture's parcel moved up to three days after the harness's clock starts: a day on, it is in the past.
        harness.clock.advance(86_400)
        try await harness.run { client in
            let acme = try await TrackingHookTests.addProviderPartner(Self.aftership, client)
            let registry = MerchantRegistry(service: client.service)
            let key = try await registry.createPartnerKey(for: "aftership-acme").text
            try await client.service.merchants.reload()
            let order = try await PartnerTrackingTests.order(
                "1001",
                tracking: Self.aftership.trackingNumber,
                carrier: Self.aftership.carrier,
                key: acme,
                client
            )
            let event = PartnerTrackingTests.events([
                ["id": "e1", "trackingNumber": Self.aftership.trackingNumber, "status": "delivered", "occurredAt": "2026-11-22T08:00:00Z"]
            ])
            try await Self.suspend("acme", .suspended, client)

            // Its key's PATCH and events, and its provider's webhook: each a 403 naming the suspension.
            let patched = try await client.patch(order, Self.progress("outForDelivery"), key: key)
            let posted = try await client.merchant(.post, "/api/v1/tracking-events", json: event, key: key)
            let hooked = try await TrackingHookTests.post(try TrackingHookTests.fixture(Self.aftership.fixture), as: Self.aftership, client)
            for answer in [patched, posted, hooked] {
                #expect(answer.status == .forbidden, "\(String(buffer: answer.body))")
                #expect(answer.json["error"]?.stringValue?.contains("merchant acme is suspended") == true, "\(String(buffer: answer.body))")
            }
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1, "nothing applied")
            #expect(try await PartnerTrackingTests.fulfillment(client, order)["status"] == .string("processing"))

            // A partner of another merchant too: it goes on for that one; its events about acme's orders are refused
            // one by one, and not kept.
            _ = try await client.addMerchant("globex")
            _ = try await registry.addPartner(name: "parcelco", merchantSlugs: ["acme", "globex"])
            let both = try await registry.createPartnerKey(for: "parcelco").text
            try await client.service.merchants.reload()
            let refused = PartnerTrackingTests.results(try await client.merchant(.post, "/api/v1/tracking-events", json: event, key: both))
            #expect(refused.first?["result"] == .string("invalid"), "\(refused)")
            #expect(refused.first?["problems"]?.arrayValue?.first?["message"]?.stringValue?.contains("suspended") == true)
            let source = "partner:\(try await registry.partner("parcelco").id)"
            #expect(try await client.store.waitingTrackingEventCount(source: source) == 0)
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1)

            // Resumed: the same requests are applied.
            try await Self.suspend("acme", .active, client)
            #expect(try await client.patch(order, Self.progress("outForDelivery"), key: key).status == .ok)
            let applied = PartnerTrackingTests.results(try await client.merchant(.post, "/api/v1/tracking-events", json: event, key: both))
            #expect(applied.first?["result"] == .string("applied"), "\(applied)")
            #expect(try await PartnerTrackingTests.fulfillment(client, order)["status"] == .string("delivered"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theOperatorsAPIUnlinksAPartnerGivesItsProviderANewSecretAndRemovesIt(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        harness.clock.advance(86_400)
        try await harness.run(operatorKey: Self.operatorKey) { client in
            func operate(_ method: HTTPRequest.Method, _ path: String, _ json: JSONValue? = nil) async throws -> TestResponse {
                try await client.merchant(method, "/api/v1/admin/partners\(path)", json: json, key: Self.operatorKey)
            }
            let acme = try await TrackingHookTests.addProviderPartner(Self.aftership, client)
            let globex = try await client.addMerchant("globex")
            let registry = MerchantRegistry(service: client.service)
            let partner = try await registry.partner("aftership-acme")
            _ = try await client.store.changePartner(
                id: partner.id,
                PartnerChange(merchantIDs: partner.merchantIDs + [try await registry.merchant("globex").id])
            )
            let key = try await registry.createPartnerKey(for: "aftership-acme").text
            try await client.service.merchants.reload()
            let own = try await PartnerTrackingTests.order(
                "1001",
                tracking: Self.aftership.trackingNumber,
                carrier: Self.aftership.carrier,
                key: acme,
                client
            )
            let theirs = try await PartnerTrackingTests.order("2001", tracking: "1Z-GLOBEX", key: globex, client)
            #expect(try await client.patch(theirs, Self.progress("onTheWay", tracking: "1Z-GLOBEX"), key: key).status == .ok)

            // Unlinked from globex: globex's orders are as missing ones to it; acme's stay its to update.
            let unlinked = try await operate(.delete, "/aftership-acme/merchants/globex")
            #expect(unlinked.status == .ok, "\(String(buffer: unlinked.body))")
            #expect(unlinked.json["partner"]?["merchantIDs"] == .array([.int(Int(try await registry.merchant("acme").id))]))
            #expect(try await client.patch(theirs, Self.progress("delivered", tracking: "1Z-GLOBEX"), key: key).status == .notFound)
            #expect(try await client.patch(own, Self.progress("onTheWay"), key: key).status == .ok)
            let again = try await operate(.delete, "/aftership-acme/merchants/globex")
            #expect(again.status == .notFound && again.json["error"]?.stringValue?.contains("does not publish") == true)
            let last = try await operate(.delete, "/aftership-acme/merchants/acme")
            #expect(last.status == .conflict, "\(String(buffer: last.body))")
            #expect(try await operate(.delete, "/aftership-acme/merchants/nobody").status == .notFound)

            // A new secret: the provider's requests signed with the old one are refused from then on.
            let body = try TrackingHookTests.fixture(Self.aftership.fixture)
            let oldSigned = try await TrackingHookTests.post(body, as: Self.aftership, client)
            #expect(oldSigned.status == .ok, "\(String(buffer: oldSigned.body))")
            for bad: JSONValue in [
                .object([:]), .object(["providerSecret": .string("short")]), .object(["providerSecret": .int(1)]),
                .object(["providerSecret": .string("long-enough-secret"), "provider": .string("fedex")]), .array([]),
            ] {
                let refused = try await operate(.put, "/aftership-acme/provider", bad)
                #expect(refused.status == .badRequest, "\(bad): \(String(buffer: refused.body))")
                #expect(refused.json["error"] != nil)
            }
            let newSecret = "a-new-secret-from-aftership-9876"
            let changed = try await operate(.put, "/aftership-acme/provider", .object(["providerSecret": .string(newSecret)]))
            #expect(changed.status == .ok && changed.json["partner"]?["provider"] == .string("aftership"))
            #expect(!String(buffer: changed.body).contains(newSecret))
            #expect(try await TrackingHookTests.post(body, as: Self.aftership, client).status == .unauthorized)
            let signed = try await ProviderSignature.afterShip(body, secret: newSecret)
            let taken = try await client.request(
                .post,
                "/hooks/aftership/aftership-acme",
                headers: [.contentType: "application/json", HTTPField.Name("aftership-hmac-sha256")!: signed],
                body: body
            )
            #expect(taken.status == .ok, "\(String(buffer: taken.body))")

            // Removed: its key and its webhook refused, the events it sent forgotten, the versions it made kept.
            let source = "partner:\(partner.id)"
            _ = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: PartnerTrackingTests.events([
                    ["id": "w1", "trackingNumber": "1Z-NONE", "status": "in_transit", "occurredAt": "2026-11-22T08:00:00Z"]
                ]),
                key: key
            )
            #expect(try await client.store.waitingTrackingEventCount(source: source) == 1)
            let removed = try await operate(.delete, "/aftership-acme")
            #expect(removed.status == .ok && removed.json["removed"] == .string("aftership-acme"))
            #expect(try await client.patch(own, Self.progress("delivered"), key: key).status == .unauthorized)
            #expect(try await client.store.waitingTrackingEventCount(source: source) == 0)
            #expect(try await operate(.get, "/aftership-acme").status == .notFound)
            #expect(try await operate(.delete, "/aftership-acme").status == .notFound)
            let versions = try await client.store.versions(type: own.type, id: own.id)
            #expect(versions.map(\.author).contains("partner:aftership-acme"))
        }
    }
}

/// Signatures as providers make them, by the `openssl` command.
enum ProviderSignature {
    /// AfterShip's `aftership-hmac-sha256`: the base64 of the body's HMAC-SHA256 under `secret`.
    static func afterShip(_ body: Data, secret: String) async throws -> String {
        let key = Array(secret.utf8).map { String(format: "%02x", $0) }.joined()
        let signed = try await Command.run(
            "/bin/sh",
            ["-c", "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(key) -binary | openssl base64 -A"],
            input: body
        )
        try #require(signed.status == 0, "\(signed.error)")
        return signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
