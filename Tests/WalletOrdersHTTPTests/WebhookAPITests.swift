import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// The webhook endpoints of the merchant API over HTTP: made, listed, changed, rotated, deleted, their deliveries
/// listed and sent again; and another merchant's endpoints answered as if there were none.
@Suite(.timeLimit(.minutes(5))) struct WebhookAPITests {
    /// A public address, so the URL passes the address policy without any network (nothing is delivered here).
    static let url = "https://93.184.216.34/hooks/wallet"

    @Test(arguments: StoreEngine.allCases)
    func aMerchantManagesItsEndpointsAndSeesWhatWasSent(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let made = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(Self.url)]))
            #expect(made.status == .created, "\(String(buffer: made.body))")
            #expect(made.headers[.cacheControl] == "no-store")
            let id = try #require(made.json["id"]?.stringValue)
            let secret = try #require(made.json["secret"]?.stringValue)
            #expect(id.hasPrefix("whk_") && secret.hasPrefix("whsec_"))
            #expect(made.json["enabled"] == .bool(true))
            #expect(made.json["events"]?.arrayValue?.count == WebhookEvent.allCases.count, "every event when none are named")

            // The secret is shown once: never in a listing or a read.
            let listed = try await client.merchant(.get, "/api/v1/webhooks")
            #expect(listed.json["webhooks"]?.arrayValue?.map { $0["id"] } == [.string(id)])
            #expect(!String(buffer: listed.body).contains(secret))
            #expect(!String(buffer: try await client.merchant(.get, "/api/v1/webhooks/\(id)").body).contains(secret))

            let narrowed = try await client.merchant(
                .patch,
                "/api/v1/webhooks/\(id)",
                json: .object(["events": .array([.string("order.updated"), .string("push.failed")])])
            )
            #expect(narrowed.status == .ok && narrowed.json["events"] == .array([.string("order.updated"), .string("push.failed")]))

            let rotated = try await client.merchant(.post, "/api/v1/webhooks/\(id)/rotate-secret")
            #expect(rotated.status == .ok && rotated.headers[.cacheControl] == "no-store")
            #expect(rotated.json["secret"]?.stringValue?.hasPrefix("whsec_") == true && rotated.json["secret"]?.stringValue != secret)

            // An update queues its event, listed with the merchant's own identifier.
            let order = try await client.createOrder()
            #expect(try await client.patch(order, .object(["statusDescription": .string("Packed")])).status == .ok)
            let deliveries = try await client.merchant(.get, "/api/v1/webhooks/\(id)/deliveries")
            let delivery = try #require(deliveries.json["deliveries"]?.arrayValue?.first, "\(deliveries.json)")
            #expect(delivery["event"] == .string("order.updated") && delivery["status"] == .string("pending"))
            #expect(delivery["orderIdentifier"] == .string(order.id) && delivery["messageId"]?.stringValue?.hasPrefix("msg_") == true)
            let deliveryID = try #require(delivery["id"]?.stringValue)
            let again = try await client.merchant(.post, "/api/v1/webhooks/\(id)/deliveries/\(deliveryID)/redeliver")
            #expect(again.status == .accepted && again.json["messageId"] == delivery["messageId"])
            #expect(try await client.merchant(.post, "/api/v1/webhooks/\(id)/deliveries/999999/redeliver").status == .notFound)

            // Disabled by its merchant: it says so, and redelivering waits for it to be enabled.
            let disabled = try await client.merchant(.patch, "/api/v1/webhooks/\(id)", json: .object(["enabled": .bool(false)]))
            #expect(disabled.json["enabled"] == .bool(false) && disabled.json["disabledReason"] != nil)
            #expect(try await client.merchant(.post, "/api/v1/webhooks/\(id)/deliveries/\(deliveryID)/redeliver").status == .conflict)

            #expect(try await client.merchant(.delete, "/api/v1/webhooks/\(id)").status == .noContent)
            let gone = try await client.merchant(.get, "/api/v1/webhooks/\(id)")
            #expect(gone.status == .notFound && gone.json["error"] == .string("no such webhook endpoint or delivery"))
        }
    }

    @Test func aBadEndpointIsRefusedWithItsProblemsNamed() async throws {
        let harness = try ServiceHarness(.sqlite)
        try await harness.run { client in
            let cases: [(JSONValue, String, String)] = [
                (.object(["url": .string("https://127.0.0.1/hook")]), "url", "not a public address"),
                (.object(["url": .string("https://169.254.169.254/latest/meta-data")]), "url", "not a public address"),
                (.object(["url": .string("http://93.184.216.34/hook")]), "url", "must be https"),
                (.object(["url": .string(Self.url), "events": .array([.string("order.shipped")])]), "events[0]", "is not an event"),
                (.object(["url": .string(Self.url), "events": .array([])]), "events", "at least one"),
                (.object(["url": .string(Self.url), "secret": .string("mine")]), "secret", "is not a field"),
                (.object([:]), "url", "is required"),
            ]
            for (body, path, message) in cases {
                let answer = try await client.merchant(.post, "/api/v1/webhooks", json: body)
                #expect(answer.status == .badRequest, "\(body)")
                let problem = answer.json["problems"]?.arrayValue?.first
                #expect(problem?["path"] == .string(path), "\(answer.json)")
                #expect(problem?["message"]?.stringValue?.contains(message) == true, "\(answer.json)")
            }
            let notAnObject = try await client.merchant(.post, "/api/v1/webhooks", json: .array([.int(1)]))
            #expect(notAnObject.status == .badRequest)
            for _ in 0..<10 {
                #expect(try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(Self.url)])).status == .created)
            }
            let eleventh = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(Self.url)]))
            #expect(eleventh.status == .conflict)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anotherMerchantsEndpointsAnswerAsIfThereWereNone(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let alpha = try await client.addMerchant("alpha")
            let bravo = try await client.addMerchant("bravo")
            let made = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(Self.url)]), key: alpha)
            let id = try #require(made.json["id"]?.stringValue)
            let order = try await client.createOrder(id: "1001", key: alpha)
            #expect(try await client.patch(order, .object(["statusDescription": .string("Packed")]), key: alpha).status == .ok)
            let delivery = try #require(
                try await client.merchant(.get, "/api/v1/webhooks/\(id)/deliveries", key: alpha).json["deliveries"]?.arrayValue?.first
            )
            let deliveryID = try #require(delivery["id"]?.stringValue)
            #expect(delivery["orderIdentifier"] == .string("1001"), "the merchant's own identifier")

            let operations: [(HTTPRequest.Method, String, JSONValue?)] = [
                (.get, "", nil), (.patch, "", .object(["enabled": .bool(false)])), (.post, "/rotate-secret", nil),
                (.get, "/deliveries", nil), (.post, "/deliveries/\(deliveryID)/redeliver", nil), (.delete, "", nil),
            ]
            for (method, suffix, body) in operations {
                let answer = try await client.merchant(method, "/api/v1/webhooks/\(id)\(suffix)", json: body, key: bravo)
                let missing = try await client.merchant(method, "/api/v1/webhooks/whk_0000000000000000\(suffix)", json: body, key: bravo)
                #expect(answer.status == .notFound, "bravo \(method) \(suffix)")
                #expect(Data(buffer: answer.body) == Data(buffer: missing.body))
            }
            #expect(try await client.merchant(.get, "/api/v1/webhooks", key: bravo).json["webhooks"] == .array([]))
            // Untouched by all that: still enabled, its secret unchanged, its delivery still pending.
            let still = try await client.merchant(.get, "/api/v1/webhooks/\(id)", key: alpha)
            #expect(still.json["enabled"] == .bool(true) && still.json["updatedAt"] == made.json["updatedAt"])
            // Bravo's own order's events go to bravo's endpoints only: alpha's has its two deliveries still (its
            // order's creation and update).
            let bravoOrder = try await client.createOrder(id: "1001", key: bravo)
            #expect(try await client.patch(bravoOrder, .object(["statusDescription": .string("Packed")]), key: bravo).status == .ok)
            let listed = try await client.merchant(.get, "/api/v1/webhooks/\(id)/deliveries", key: alpha)
            #expect(listed.json["deliveries"]?.arrayValue?.count == 2)
        }
    }
}
