import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// Carrier aggregators' webhooks at /hooks/{provider}/{partner}: a request signed as the provider signs it (by the
/// `openssl` command here) moves the order; any other changes nothing.
@Suite(.timeLimit(.minutes(5))) struct TrackingHookTests {
    static let secret = "whsec-from-the-provider-0123456789"

    /// The fixture `name` of Tests/Fixtures/tracking.
    static func fixture(_ name: String) throws -> Data {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: folder.appendingPathComponent("Fixtures/tracking/\(name)"))
    }

    /// HMAC-SHA256 of `body` under the secret, by the `openssl` command: base64 (AfterShip) or hex (EasyPost).
    static func hmac(_ body: Data, base64: Bool) async throws -> String {
        let key = Array(secret.utf8).map { String(format: "%02x", $0) }.joined()
        let script =
            base64
            ? "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(key) -binary | openssl base64 -A"
            : "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(key) -r | cut -d' ' -f1"
        let signed = try await Command.run("/bin/sh", ["-c", script], input: body)
        try #require(signed.status == 0, "\(signed.error)")
        return signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Provider: Sendable, CustomStringConvertible {
        let name: String
        let fixture: String
        let trackingNumber: String
        /// How the merchant names the carrier, not as the provider does.
        let carrier: String
        let header: String
        let sign: @Sendable (Data) async throws -> String
        let status: String
        var description: String { name }
    }

    static let providers = [
        Provider(
            name: "aftership",
            fixture: "aftership-tracking-update.json",
            trackingNumber: "00340434161094042557",
            carrier: "DHL Express",
            header: "aftership-hmac-sha256",
            sign: { try await hmac($0, base64: true) },
            status: "outForDelivery"
        ),
        Provider(
            name: "easypost",
            fixture: "easypost-tracker-updated.json",
            trackingNumber: "9400111206213859482101",
            carrier: "USPS",
            header: "x-hmac-signature",
            sign: { "hmac-sha256-hex=" + (try await hmac($0, base64: false)) },
            status: "outForDelivery"
        ),
    ]

    /// A partner `{provider}-acme` for the merchant acme, with the provider and the secret; answers acme's key.
    static func addProviderPartner(_ provider: Provider, _ client: ServiceHarness.Client) async throws -> String {
        let acme = try await client.addMerchant("acme")
        let registry = MerchantRegistry(service: client.service)
        _ = try await registry.addPartner(
            name: "\(provider.name)-acme",
            merchantSlugs: ["acme"],
            provider: provider.name,
            providerSecret: Self.secret
        )
        try await client.service.merchants.reload()
        return acme
    }

    /// `body` posted to the provider's hook for the partner `{provider}-acme`, signed as the provider signs it.
    static func post(_ body: Data, as provider: Provider, _ client: ServiceHarness.Client) async throws -> TestResponse {
        let headers: HTTPFields = await [.contentType: "application/json", HTTPField.Name(provider.header)!: try provider.sign(body)]
        return try await client.request(.post, "/hooks/\(provider.name)/\(provider.name)-acme", headers: headers, body: body)
    }

    /// A provider's fixture, a JSON object, with `change` made to its members: compact JSON.
    static func edited(_ fixture: String, _ change: (inout [String: JSONValue]) -> Void) throws -> Data {
        var members = try JSONValue.parse(try Self.fixture(fixture)).objectValue ?? [:]
        change(&members)
        return JSONValue.object(members).serialized()
    }

    /// `value`, a JSON object, with `change` made to its members.
    static func edited(_ value: JSONValue?, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        var members = value?.objectValue ?? [:]
        change(&members)
        return .object(members)
    }

    @Test(arguments: StoreEngine.allCases, providers)
    func aSignedWebhookMovesTheOrderAndAnyOtherChangesNothing(engine: StoreEngine, provider: Provider) async throws {
        let harness = try ServiceHarness(engine)
        // The fixtures' parcels moved up to three days and three hours after the harness's clock starts: a day on,
        // they are in the past, as a provider's events are.
        harness.clock.advance(86_400)
        try await harness.run { client in
            let acme = try await Self.addProviderPartner(provider, client)
            let order = try await PartnerTrackingTests.order(
                "1001",
                tracking: provider.trackingNumber,
                carrier: provider.carrier,
                key: acme,
                client
            )
            let body = try Self.fixture(provider.fixture)
            let path = "/hooks/\(provider.name)/\(provider.name)-acme"
            func post(_ body: Data, signature: String?, to path: String = path) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let signature { headers[HTTPField.Name(provider.header)!] = signature }
                return try await client.request(.post, path, headers: headers, body: body)
            }

            var tampered = body
            tampered[tampered.index(tampered.startIndex, offsetBy: 10)] ^= 0x01
            let refusals = [
                try await post(body, signature: nil),
                try await post(body, signature: try provider.sign(Data("{}".utf8))),
                try await post(tampered, signature: try provider.sign(body)),
                try await post(body, signature: try provider.sign(body), to: "/hooks/\(provider.name)/no-such-partner"),
            ]
            for refused in refusals { #expect(refused.status == .unauthorized, "\(String(buffer: refused.body))") }
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1, "nothing changed")

            let taken = try await post(body, signature: try provider.sign(body))
            #expect(taken.status == .ok, "\(String(buffer: taken.body))")
            let results = try JSONValue.parse(Data(buffer: taken.body))["results"]?.arrayValue ?? []
            #expect(results.map { $0["result"] } == [.string("applied")])
            let fulfillment = try await PartnerTrackingTests.fulfillment(client, order)
            #expect(fulfillment["status"] == .string(provider.status))
            let versions = try await client.store.versions(type: order.type, id: order.id)
            #expect(versions.map(\.author) == ["merchant:acme", "partner:\(provider.name)-acme"])

            // The provider sends it again: a duplicate, nothing written.
            let again = try await post(body, signature: try provider.sign(body))
            #expect((try JSONValue.parse(Data(buffer: again.body))["results"]?.arrayValue ?? []).map { $0["result"] } == [.string("duplicate")])
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 2)
        }
    }

    /// AfterShip's request with `ts` as its only time: no checkpoints, no `updated_at`.
    static func afterShipSentAt(_ ts: Int64, eventID: String = "ts-only") throws -> Data {
        try edited("aftership-tracking-update.json") { root in
            root["ts"] = .int(Int(ts))
            root["event_id"] = .string(eventID)
            root["msg"] = Self.edited(root["msg"]) { tracking in
                tracking["checkpoints"] = .array([])
                tracking["updated_at"] = nil
            }
        }
    }

    @Test(arguments: StoreEngine.allCases, [Int64.max, Int64.min, 0])
    func aSignedAfterShipRequestWithAnAbsurdTimestampIsInvalidAndNothingTraps(engine: StoreEngine, ts: Int64) async throws {
        let aftership = Self.providers[0]
        try await ServiceHarness(engine).run { client in
            let acme = try await Self.addProviderPartner(aftership, client)
            let body = try Self.afterShipSentAt(ts)
            // No order holds the number yet, then the provider sends it again: each time invalid, nothing kept.
            for _ in 0..<2 {
                let answer = try await Self.post(body, as: aftership, client)
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                let results = PartnerTrackingTests.results(answer)
                #expect(results.map { $0["result"] } == [.string("invalid")], "\(String(buffer: answer.body))")
                #expect(results.first?["problems"]?.arrayValue?.map { $0["path"] } == [.string("occurredAt")])
                let message = results.first?["problems"]?.arrayValue?.first?["message"]?.stringValue ?? ""
                #expect(message.contains("2000-01-01T00:00:00Z"), "\(message)")
            }
            // A merchant's write that adds the number finds nothing waiting, and the order shows no absurd date.
            let order = try await PartnerTrackingTests.order(
                "1001",
                tracking: aftership.trackingNumber,
                carrier: aftership.carrier,
                key: acme,
                client
            )
            let fulfillment = try await PartnerTrackingTests.fulfillment(client, order)
            #expect(fulfillment["status"] == .string("processing"))
            #expect(fulfillment["shippedAt"] == nil && fulfillment["deliveredAt"] == nil)
            // Sent once more, now that an order holds the number: still invalid, nothing written.
            let again = try await Self.post(body, as: aftership, client)
            #expect(PartnerTrackingTests.results(again).map { $0["result"] } == [.string("invalid")])
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anEventDatedInTheYear9999IsInvalidAndALaterRealEventIsNotStale(engine: StoreEngine) async throws {
        let aftership = Self.providers[0]
        let harness = try ServiceHarness(engine)
        harness.clock.advance(86_400)
        try await harness.run { client in
            let acme = try await Self.addProviderPartner(aftership, client)
            let order = try await PartnerTrackingTests.order(
                "1001",
                tracking: aftership.trackingNumber,
                carrier: aftership.carrier,
                key: acme,
                client
            )
            let far = try Self.edited("aftership-tracking-update.json") { root in
                root["event_id"] = .string("far-future")
                root["msg"] = Self.edited(root["msg"]) { tracking in
                    tracking["tag"] = .string("Delivered")
                    tracking["checkpoints"] = .array([.object(["checkpoint_time": .string("9999-12-31T23:59:59+00:00")])])
                }
            }
            let refused = try await Self.post(far, as: aftership, client)
            #expect(PartnerTrackingTests.results(refused).map { $0["result"] } == [.string("invalid")], "\(String(buffer: refused.body))")
            // Through the tracking events API, the same window.
            let sent = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: PartnerTrackingTests.events([
                    ["id": "m9", "trackingNumber": aftership.trackingNumber, "status": "delivered", "occurredAt": "9999-12-31T23:59:59Z"]
                ]),
                key: acme
            )
            let results = PartnerTrackingTests.results(sent)
            #expect(results.map { $0["result"] } == [.string("invalid")])
            #expect(results.first?["problems"]?.arrayValue?.map { $0["path"] } == [.string("events[0].occurredAt")])
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1, "nothing written")

            // The real event that follows is applied, not stale.
            let real = try await Self.post(try Self.fixture(aftership.fixture), as: aftership, client)
            #expect(PartnerTrackingTests.results(real).map { $0["result"] } == [.string("applied")], "\(String(buffer: real.body))")
            let fulfillment = try await PartnerTrackingTests.fulfillment(client, order)
            #expect(fulfillment["status"] == .string("outForDelivery"))
            #expect(fulfillment["deliveredAt"] == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anEventThatHappenedIn1970IsInvalid(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run { client in
            let acme = try await client.addMerchant("acme")
            let order = try await PartnerTrackingTests.order("1001", tracking: "1Z001", key: acme, client)
            let sent = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: PartnerTrackingTests.events([
                    ["id": "epoch", "trackingNumber": "1Z001", "status": "delivered", "occurredAt": "1970-01-01T00:00:00Z"],
                    [
                        "id": "estimate", "trackingNumber": "1Z001", "status": "in_transit", "occurredAt": "2026-11-22T09:00:00Z",
                        "estimatedDeliveryAt": "2036-11-22T09:00:00Z",
                    ],
                ]),
                key: acme
            )
            let results = PartnerTrackingTests.results(sent)
            #expect(results.map { $0["result"] } == [.string("invalid"), .string("invalid")], "\(String(buffer: sent.body))")
            #expect(
                results.map { $0["problems"]?.arrayValue?.first?["path"] } == [
                    .string("events[0].occurredAt"), .string("events[1].estimatedDeliveryAt"),
                ]
            )
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1, "nothing written")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anAbsurdEventKeptBeforeInstantsWereCheckedIsSettledAndNeverApplied(engine: StoreEngine) async throws {
        let aftership = Self.providers[0]
        try await ServiceHarness(engine).run { client in
            let acme = try await Self.addProviderPartner(aftership, client)
            let partner = try #require(try await client.service.merchants.partner(named: "aftership-acme"))
            let source = "partner:\(partner.id)"
            // As an earlier version kept them: the encoder's dates (seconds since 2001), one far past what an Int holds,
            // and a body no version can read.
            let kept = [
                #"{"id": "huge", "trackingNumber": "1Z777", "status": "delivered", "occurredAt": 1e300}"#,
                #"{"id": "unreadable", "trackingNumber": "1Z777"}"#,
            ]
            let records = kept.enumerated().map { index, body in
                TrackingEventRecord(source: source, id: ["huge", "unreadable"][index], trackingNumber: "1Z777", body: Data(body.utf8))
            }
            _ = try await client.store.receiveTrackingEvents(records)

            let order = try await PartnerTrackingTests.order("1001", tracking: "1Z777", key: acme, client)
            let fulfillment = try await PartnerTrackingTests.fulfillment(client, order)
            #expect(fulfillment["status"] == .string("processing"))
            #expect(fulfillment["deliveredAt"] == nil)
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1)
            // Settled: the next write that adds the number reads neither again.
            #expect(try await client.store.waitingTrackingEvents(trackingNumbers: ["1Z777"], sources: [source]).isEmpty)
        }
    }
}
