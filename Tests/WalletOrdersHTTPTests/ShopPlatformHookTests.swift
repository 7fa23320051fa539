import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

/// WooCommerce and UCP shops connected by the operator: their own signed webhooks (written from each platform's
/// documented payloads; HMACs and RFC 9421 signatures made by the `openssl` command) make and keep a Wallet order
/// the device fetches and verifies.
@Suite(.timeLimit(.minutes(5))) struct ShopPlatformHookTests {
    static let secret = "wc-webhook-secret-0123456789abcdef"

    /// Connects a shop of `kind` to `slug`; answers the path its webhooks reach this server at.
    static func connect(
        _ client: ServiceHarness.Client,
        _ slug: String,
        kind: String,
        shop: String,
        secret: String
    ) async throws
        -> String
    {
        let made = try await client.merchant(
            .post,
            "/api/v1/admin/merchants/\(slug)/shops",
            json: .object(["kind": .string(kind), "shop": .string(shop), "secret": .string(secret)]),
            key: ShopHookTests.operatorKey
        )
        try #require(made.status == .created, "\(String(buffer: made.body))")
        let url = try #require(made.json["webhookURL"]?.stringValue)
        return String(url.dropFirst(ServiceHarness.webServiceURL.count))
    }

    /// The fetched package of `order`, its signature checked by `openssl cms -verify`: its order.json.
    static func fetchedDocument(_ client: ServiceHarness.Client, _ order: ServiceHarness.OrderDetails) async throws -> OrderDocument {
        let fetched = try await client.fetch(order)
        try #require(fetched.status == .ok)
        let package = Data(buffer: fetched.body)
        let cms = try await Command.verifySignature(ofPackage: package, rootPath: DevelopmentKeys.shared.rootPath)
        #expect(cms.status == 0, "\(cms.error)")
        let json = try #require(try ZipArchive.read(package).first { $0.path == "order.json" })
        return try OrderDocument(data: json.data)
    }

    static func details(_ client: ServiceHarness.Client, id: String) async throws -> ServiceHarness.OrderDetails {
        let stored = try #require(try await client.store.order(type: DevelopmentKeys.orderType, id: id))
        return ServiceHarness.OrderDetails(type: stored.orderTypeIdentifier, id: id, token: stored.authenticationToken)
    }

    @Test(arguments: StoreEngine.allCases)
    func aWooCommerceOrderAndItsTrackingMetaMakeAWalletOrderUntilItIsDeleted(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: ShopHookTests.operatorKey) { client in
            _ = try await client.addMerchant("acme")
            let path = try await Self.connect(client, "acme", kind: "woocommerce", shop: "https://acme.example", secret: Self.secret)
            func send(_ topic: String, _ body: [UInt8], id: String) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[HTTPField.Name("X-WC-Webhook-Topic")!] = topic
                headers[HTTPField.Name("X-WC-Webhook-Delivery-ID")!] = id
                headers[HTTPField.Name("X-WC-Webhook-Source")!] = "https://acme.example/"
                headers[HTTPField.Name("X-WC-Webhook-Signature")!] = try await ShopHookTests.hmac(body, secret: Self.secret)
                return try await client.request(.post, path, headers: headers, body: Data(body))
            }
            // Placed, not yet shipped: no parcels in the order's meta.
            var placed = try #require(try JSONValue.parse(Data(try ShopHookTests.fixture("woocommerce/order-updated.json"))).objectValue)
            placed["status"] = .string("processing")
            placed["meta_data"] = .array([])
            let created = try await send("order.created", Array(JSONValue.object(placed).serialized()), id: "101")
            #expect(created.json["result"] == .string("created"), "\(created.json)")
            let order = try await Self.details(client, id: "acme:woocommerce-727")
            #expect(try await client.register(order, device: "phone-1").status == .created)

            // Shipped with the Shipment Tracking and AfterShip plugins: two parcels, their carriers' pages added
            // from the numbers (the plugins gave carriers' slugs, no links).
            let shipped = try ShopHookTests.fixture("woocommerce/order-updated.json")
            #expect(try await send("order.updated", shipped, id: "102").json["result"] == .string("updated"))
            #expect(try await send("order.updated", shipped, id: "103").json["result"] == .string("unchanged"))
            #expect(try await send("order.updated", shipped, id: "102").json["result"] == .string("duplicate"))
            let document = try await Self.fetchedDocument(client, order)
            let parcels = document.fulfillmentViews.sorted { ($0.trackingNumber ?? "") < ($1.trackingNumber ?? "") }
            #expect(parcels.map(\.trackingNumber) == ["00340434161094042557", "RR123456785DE"])
            #expect(parcels.allSatisfy { $0.trackingURL?.hasPrefix("https://www.dhl.de/") == true }, "\(parcels.map(\.fields))")
            #expect(document["status"] == .string("completed"))

            // Deleted in the shop: cancelled in Wallet.
            let deleted = try ShopHookTests.fixture("woocommerce/order-deleted.json")
            #expect(try await send("order.deleted", deleted, id: "104").json["result"] == .string("updated"))
            #expect(try await Self.fetchedDocument(client, order)["status"] == .string("cancelled"))
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 3)
            let pushes = try await client.store.pushes(PushFilter(type: order.type, id: order.id), page: PageRequest(limit: 10)).records
            #expect(pushes.count == 1, "the device is told, once while its push waits")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aUCPOrderSignedWithRFC9421MakesAWalletOrderAndItsEventsMoveIt(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(operatorKey: ShopHookTests.operatorKey) { client in
            _ = try await client.addMerchant("acme")
            let signer = try await UCPSigner.make(.es256, kid: "business-2026")
            // The connection holds the business's UCP profile, as /.well-known/ucp publishes it.
            let profile = JSONValue.object(["ucp": .object(["version": .string("2026-04-08")]), "keys": .array([try await signer.jwk()])])
            let path = try await Self.connect(
                client,
                "acme",
                kind: "ucp",
                shop: "https://business.example.com",
                secret: String(decoding: profile.serialized(), as: UTF8.self)
            )
            func send(_ body: [UInt8], id: String, signer: UCPSigner) async throws -> TestResponse {
                let now = Int(harness.clock.now.timeIntervalSince1970)
                let digest = try await Command.run("/bin/sh", ["-c", "openssl dgst -sha256 -binary | openssl base64 -A"], input: Data(body))
                try #require(digest.status == 0, "\(digest.error)")
                let values: [(String, String)] = [
                    ("@method", "POST"), ("@authority", "orders.example.com"), ("@path", "/wallet\(path)"),
                    ("content-digest", "sha-256=:\(digest.output.trimmingCharacters(in: .whitespacesAndNewlines)):"),
                    ("content-type", "application/json"), ("webhook-id", id), ("webhook-timestamp", String(now)),
                ]
                let list = "(" + values.map { "\"\($0.0)\"" }.joined(separator: " ") + ");created=\(now);keyid=\"\(signer.kid)\""
                let base = (values.map { "\"\($0.0)\": \($0.1)" } + ["\"@signature-params\": \(list)"]).joined(separator: "\n")
                let signature = try await signer.sign(base).base64EncodedString()
                var headers: HTTPFields = [:]
                for (name, value) in values where !name.hasPrefix("@") { headers[HTTPField.Name(name)!] = value }
                headers[HTTPField.Name("Signature-Input")!] = "sig1=\(list)"
                headers[HTTPField.Name("Signature")!] = "sig1=:\(signature):"
                return try await client.request(.post, path, headers: headers, body: Data(body))
            }
            // The order as the business sends it first: processing, nothing shipped yet.
            var order = try #require(try JSONValue.parse(Data(try ShopHookTests.fixture("ucp/order.json"))).objectValue)
            let events = order["fulfillment"]?["events"]?.arrayValue ?? []
            func withEvents(_ count: Int) -> [UInt8] {
                var fulfillment = order["fulfillment"]?.objectValue ?? [:]
                fulfillment["events"] = .array(Array(events.prefix(count)))
                order["fulfillment"] = .object(fulfillment)
                return Array(JSONValue.object(order).serialized())
            }
            let created = try await send(withEvents(1), id: "evt_1", signer: signer)
            #expect(created.json["result"] == .string("created"), "\(created.json)")
            let details = try await Self.details(client, id: "acme:ucp-order_7Hq2Lx9")
            #expect(try await client.register(details, device: "phone-1").status == .created)

            // Shipped, then delivered: each webhook the whole order, its events appended.
            #expect(try await send(withEvents(2), id: "evt_2", signer: signer).json["result"] == .string("updated"))
            #expect(try await send(withEvents(4), id: "evt_3", signer: signer).json["result"] == .string("updated"))
            #expect(try await send(withEvents(4), id: "evt_3", signer: signer).json["result"] == .string("duplicate"))
            let parcel = try #require(try await Self.fetchedDocument(client, details).fulfillmentViews.first { $0.trackingNumber != nil })
            #expect(parcel.trackingNumber == "9400111899223033005382")
            #expect(parcel.status == "delivered" && parcel.carrier == "USPS")

            // Another key, even one that names the business's key id, is refused like any failure to sign.
            let stranger = try await UCPSigner.make(.es256, kid: "business-2026")
            let forged = try await send(withEvents(4), id: "evt_4", signer: stranger)
            #expect(forged.status == .unauthorized)
            #expect(try await client.store.versions(type: details.type, id: details.id).count == 3)
        }
    }
}
