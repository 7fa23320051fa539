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

    @Test(arguments: StoreEngine.allCases, providers)
    func aSignedWebhookMovesTheOrderAndAnyOtherChangesNothing(engine: StoreEngine, provider: Provider) async throws {
        try await ServiceHarness(engine).run { client in
            let acme = try await client.addMerchant("acme")
            let registry = MerchantRegistry(service: client.service)
            _ = try await registry.addPartner(
                name: "\(provider.name)-acme",
                merchantSlugs: ["acme"],
                provider: provider.name,
                providerSecret: Self.secret
            )
            try await client.service.merchants.reload()
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
}
