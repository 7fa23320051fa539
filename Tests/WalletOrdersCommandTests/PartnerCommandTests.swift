import Foundation
import Testing
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersTesting

/// `wallet-orders partners …` beside a running server, and a partner's tracking event reaching a simulated Wallet
/// device through the local APNs.
@Suite(.timeLimit(.minutes(10))) struct PartnerCommandTests {
    @Test func aPartnerMadeOnTheCommandLinePostsAnEventThatReachesTheDeviceAsAPushAndANewVersion() async throws {
        let cycle = try await WalletCycle.start(.sqlite)
        defer { cycle.stop() }
        let apns = try #require(cycle.apns)
        let details = try await OrderDetails(json: cycle.createOrder())
        let device = try SimulatedDevice(trustedRootsPEM: cycle.rootPEM, allowsHTTPWebService: true, client: patientClient())
        device.connect(to: apns)
        defer { device.stop() }
        #expect(try await device.add(details).isRegistered)

        // The shop ships and names the parcel; the device follows.
        let patch =
            #"{"fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1", "#
            + #""status": "shipped", "carrier": "Example Post", "trackingNumber": "EX-1001"}]}"#
        let shipped = try await steps(
            of: device,
            until: { $0.kind == .verified || $0.kind == .refused },
            after: {
                let queued = try await cycle.patch(details, patch)
                #expect(queued == 1)
            }
        )
        #expect(shipped.last?.kind == .verified, "\(shipped.map(\.description))")

        let listed = try await cycle.command(["partners", "add", "parcelco", "--merchant", "default"])
        #expect(listed.contains("parcelco") && listed.contains("default"), "\(listed)")
        let made = try await JSONValue.parse(Data(try cycle.command(["partners", "key", "create", "parcelco", "--json"]).utf8))
        let key = try #require(made["key"]?.stringValue)
        #expect(key.hasPrefix("wo_partner_"))

        // The carrier's word, through the partner's key: a push, a listing, a fetch of the partner's version.
        let body =
            #"{"events": [{"id": "ev-1", "trackingNumber": "EX-1001", "status": "out_for_delivery", "#
            + #""occurredAt": "2026-11-25T08:00:00Z", "description": "With the driver"}]}"#
        let delivered = try await steps(
            of: device,
            until: { $0.kind == .verified || $0.kind == .refused },
            after: {
                // The server reads partners again within a second or so of the command line adding one.
                let answer = try await MerchantCommandTests.eventually(seconds: 5) {
                    try await cycle.merchant.curl([
                        "-X", "POST", "\(cycle.base)/api/v1/tracking-events", "-H", "Authorization: Bearer \(key)",
                        "-H", "Content-Type: application/json", "-d", body,
                    ])
                } until: {
                    $0.contains("\"applied\"")
                }
                #expect(answer.contains("\"applied\""), "\(answer)")
            }
        )
        #expect(delivered.map(\.kind).suffix(3) == [.list, .fetch, .verified], "\(delivered.map(\.description))")
        let order = try #require(await device.order(details.orderTypeIdentifier, details.orderIdentifier))
        let fulfillment = order.order["fulfillments"]?.arrayValue?.first
        #expect(fulfillment?["status"] == .string("outForDelivery"))
        #expect(fulfillment?["statusDescription"] == .string("With the driver"))

        // The admin view says who made each version; the partner's key stops working once revoked.
        let story = try await cycle.command(["admin", "order", details.orderTypeIdentifier, details.orderIdentifier])
        #expect(story.contains("partner:parcelco") && story.contains("merchant:default"), "\(story)")
        let keyID = try #require(made["id"]?.stringValue)
        _ = try await cycle.command(["partners", "key", "revoke", "parcelco", keyID])
        let refused = try await MerchantCommandTests.eventually(seconds: 5) {
            try await cycle.merchant.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(cycle.base)/api/v1/tracking-events",
                "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "-d", body,
            ])
        } until: {
            $0 == "401"
        }
        #expect(refused == "401")
        #expect(!cycle.server.output.contains(key), "the key is never printed by the server")
    }
}
