import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// Shops that write no code: a Shopify store connected by the operator sends its own signed webhooks (written from
/// Shopify's documented payloads, signed here by the `openssl` command), and the merchant's Wallet order follows them:
/// made, shipped, delivered, pushed, told to the merchant's endpoints; taken once; nothing written for a change that
/// changes nothing; another merchant's shop never touches it.
@Suite(.timeLimit(.minutes(5))) struct ShopHookTests {
    static let operatorKey = "operator-key-for-tests-0123456789"
    static let secret = "shpss_0123456789abcdef0123456789ab"
    static let fixtures = SampleOrder.repository.appendingPathComponent("Tests/Fixtures/shops")

    static func fixture(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(path)))
    }

    /// The base64 HMAC-SHA256 of `body` under `secret`, by `openssl dgst`: what Shopify and WooCommerce send.
    static func hmac(_ body: [UInt8], secret: String = ShopHookTests.secret) async throws -> String {
        try await Command.hmacSHA256Base64(body, secret: secret)
    }

    /// Posts `body` as Shopify would to `path`, under `topic`, with the delivery id `id`.
    static func shopify(
        _ client: ServiceHarness.Client,
        _ path: String,
        topic: String,
        body: [UInt8],
        id: String,
        signature: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[HTTPField.Name("X-Shopify-Topic")!] = topic
        if let signature {
            headers[HTTPField.Name("X-Shopify-Hmac-Sha256")!] = signature
        } else {
            headers[HTTPField.Name("X-Shopify-Hmac-Sha256")!] = try await hmac(body)
        }
        headers[HTTPField.Name("X-Shopify-Webhook-Id")!] = id
        headers[HTTPField.Name("X-Shopify-Shop-Domain")!] = "acme.myshopify.com"
        return try await client.request(.post, path, headers: headers, body: Data(body))
    }

    /// Connects a Shopify store to `slug` through the operator's API; answers its webhook path.
    static func connect(_ client: ServiceHarness.Client, _ slug: String, secret: String = ShopHookTests.secret) async throws -> String {
        let made = try await client.merchant(
            .post,
            "/api/v1/admin/merchants/\(slug)/shops",
            json: .object([
                "kind": .string("shopify"), "shop": .string("\(slug).myshopify.com"), "secret": .string(secret),
                "orderManagementURL": .string("https://\(slug).example/account/orders/{id}"),
            ]),
            key: operatorKey
        )
        try #require(made.status == .created, "\(String(buffer: made.body))")
        #expect(made.json["shop"]?["secret"] == nil, "the secret is never shown")
        // The public URL is under the web service's URL, which a proxy maps to this server's root.
        let url = try #require(made.json["webhookURL"]?.stringValue)
        #expect(url.hasPrefix("\(ServiceHarness.webServiceURL)/hooks/shopify/"))
        return String(url.dropFirst(ServiceHarness.webServiceURL.count))
    }

    @Test(arguments: StoreEngine.allCases)
    func aShopifyOrderItsFulfillmentAndItsEventsMakeAWalletOrderThatFollowsThem(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: Self.operatorKey) { client in
            let acme = try await client.addMerchant("acme")
            let endpoint = try await client.merchant(
                .post,
                "/api/v1/webhooks",
                json: .object(["url": .string(WebhookAPITests.url)]),
                key: acme
            )
            let path = try await Self.connect(client, "acme")

            let created = try await Self.shopify(
                client,
                path,
                topic: "orders/create",
                body: try Self.fixture("shopify/orders-create.json"),
                id: "w-1"
            )
            #expect(created.status == .ok, "\(String(buffer: created.body))")
            #expect(created.json["result"] == .string("created"), "\(created.json)")
            let ownID = try #require(created.json["orderIdentifier"]?.stringValue)
            #expect(ownID == "shopify-5820194783521")
            let stored = try #require(try await client.store.order(type: DevelopmentKeys.orderType, id: "acme:\(ownID)"))
            #expect(stored.document["orderNumber"] == .string("#1042"))
            #expect(stored.document["orderManagementURL"] == .string("https://acme.example/account/orders/5820194783521"))
            #expect(!String(decoding: stored.document.serialized, as: UTF8.self).contains("authenticate?key="))
            let order = ServiceHarness.OrderDetails(type: stored.orderTypeIdentifier, id: "acme:\(ownID)", token: stored.authenticationToken)
            #expect(try await client.register(order, device: "phone-1").status == .created)

            // The same delivery again: taken once. The same order in another delivery: nothing changes, nothing written.
            let again = try await Self.shopify(client, path, topic: "orders/create", body: try Self.fixture("shopify/orders-create.json"), id: "w-1")
            #expect(again.json["result"] == .string("duplicate"))
            let unchanged = try await Self.shopify(
                client,
                path,
                topic: "orders/updated",
                body: try Self.fixture("shopify/orders-create.json"),
                id: "w-2"
            )
            #expect(unchanged.json["result"] == .string("unchanged"), "\(unchanged.json)")
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1)

            // Shipped, in transit, delivered: each a new version pushed to the device.
            for (topic, file, id) in [
                ("fulfillments/create", "shopify/fulfillments-create.json", "w-3"),
                ("fulfillment_events/create", "shopify/fulfillment-events-in-transit.json", "w-4"),
                ("fulfillment_events/create", "shopify/fulfillment-events-delivered.json", "w-5"),
            ] {
                let answer = try await Self.shopify(client, path, topic: topic, body: try Self.fixture(file), id: id)
                #expect(answer.json["result"] == .string("updated"), "\(topic): \(answer.json)")
            }
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 4)
            let pushes = try await client.store.pushes(PushFilter(type: order.type, id: order.id), page: PageRequest(limit: 10)).records
            #expect(!pushes.isEmpty, "the device is told")

            // The device fetches the version Wallet shows: signed as Wallet checks it, the parcel delivered.
            let fetched = try await client.fetch(order)
            #expect(fetched.status == .ok)
            let package = Data(buffer: fetched.body)
            let cms = try await Command.verifySignature(ofPackage: package, rootPath: DevelopmentKeys.shared.rootPath)
            #expect(cms.status == 0, "\(cms.error)")
            let json = try #require(try ZipArchive.read(package).first { $0.path == "order.json" })
            let document = try OrderDocument(data: json.data)
            let fulfillment = try #require(document.fulfillmentViews.first)
            #expect(fulfillment.status == "delivered")
            #expect(fulfillment.trackingNumber == "1Z999AA10123456784")
            #expect(fulfillment.carrier == "UPS")

            // The merchant heard of each: the order made, then each version.
            let endpointID = try #require(endpoint.json["id"]?.stringValue)
            let deliveries = try await client.merchant(.get, "/api/v1/webhooks/\(endpointID)/deliveries", key: acme)
            let events = (deliveries.json["deliveries"]?.arrayValue ?? []).compactMap { $0["event"]?.stringValue }
            #expect(events.filter { $0 == "order.created" }.count == 1)
            #expect(events.filter { $0 == "order.updated" }.count == 3)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func everyFailureToSignAnswersOne401AndAnotherMerchantsShopNeverTouchesTheOrder(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: Self.operatorKey) { client in
            _ = try await client.addMerchant("acme")
            _ = try await client.addMerchant("bravo")
            let acme = try await Self.connect(client, "acme")
            let bravo = try await Self.connect(client, "bravo", secret: "shpss_bravo-secret-0123456789abcdef")
            let body = try Self.fixture("shopify/orders-create.json")
            let wrong = try await Self.shopify(
                client,
                acme,
                topic: "orders/create",
                body: body,
                id: "x-1",
                signature: try await Self.hmac(body, secret: "shpss_not-the-secret-0123456789")
            )
            let unknown = try await Self.shopify(client, "/hooks/shopify/shp_0000000000000000", topic: "orders/create", body: body, id: "x-2")
            let otherKind = try await Self.shopify(
                client,
                acme.replacingOccurrences(of: "/shopify/", with: "/woocommerce/"),
                topic: "orders/create",
                body: body,
                id: "x-3"
            )
            for answer in [wrong, unknown, otherKind] {
                #expect(answer.status == .unauthorized)
                #expect(Data(buffer: answer.body) == Data(buffer: wrong.body))
            }
            #expect(try await client.store.orders(OrderFilter(), page: PageRequest(limit: 10)).records.isEmpty)

            // Acme's shop makes acme's order. Bravo's shop, sending the same shop order id, cancels nothing of
            // acme's: its cancellation finds no Wallet order of bravo's, and its own order is bravo's alone.
            #expect(try await Self.shopify(client, acme, topic: "orders/create", body: body, id: "a-1").json["result"] == .string("created"))
            var cancelled = try #require(try JSONValue.parse(Data(body)).objectValue)
            cancelled["cancelled_at"] = .string("2026-03-02T10:00:00-05:00")
            cancelled["cancel_reason"] = .string("customer")
            let cancelledBody = Array(JSONValue.object(cancelled).serialized())
            let bravoSecret = "shpss_bravo-secret-0123456789abcdef"
            let fromBravo = try await Self.shopify(
                client,
                bravo,
                topic: "orders/cancelled",
                body: cancelledBody,
                id: "b-1",
                signature: try await Self.hmac(cancelledBody, secret: bravoSecret)
            )
            #expect(fromBravo.json["result"] == .string("ignored"), "bravo has no such Wallet order: \(fromBravo.json)")
            let bravoMade = try await Self.shopify(
                client,
                bravo,
                topic: "orders/create",
                body: body,
                id: "b-2",
                signature: try await Self.hmac(body, secret: bravoSecret)
            )
            #expect(bravoMade.json["result"] == .string("created"))
            let ids = try await client.store.orders(OrderFilter(), page: PageRequest(limit: 10)).records.map(\.orderIdentifier)
            #expect(Set(ids) == ["acme:shopify-5820194783521", "bravo:shopify-5820194783521"])
            let acmeOrder = try #require(try await client.store.order(type: DevelopmentKeys.orderType, id: "acme:shopify-5820194783521"))
            #expect(acmeOrder.status == .open && acmeOrder.version == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aMerchantsKeyNeverReachesShopConnectionsAndAnotherMerchantsConnectionIsNotFound(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: Self.operatorKey) { client in
            let acmeKey = try await client.addMerchant("acme")
            _ = try await client.addMerchant("bravo")
            let acme = try await Self.connect(client, "acme")
            let acmeID = String(acme.split(separator: "/").last ?? "")
            let routes: [(HTTPRequest.Method, String, JSONValue?)] = [
                (.get, "/api/v1/admin/merchants/acme/shops", nil),
                (
                    .post, "/api/v1/admin/merchants/acme/shops",
                    .object(["kind": .string("shopify"), "shop": .string("x.myshopify.com"), "secret": .string(Self.secret)])
                ),
                (.patch, "/api/v1/admin/merchants/acme/shops/\(acmeID)", .object(["skipApplePay": .bool(false)])),
                (.delete, "/api/v1/admin/merchants/acme/shops/\(acmeID)", nil),
            ]
            // A merchant's key is no operator's, even for its own shops: answered as a wrong key is.
            for (method, path, body) in routes {
                let answer = try await client.merchant(method, path, json: body, key: acmeKey)
                let wrong = try await client.merchant(method, path, json: body, key: "not-a-key-0123456789abcdef")
                #expect(answer.status == .unauthorized && Data(buffer: answer.body) == Data(buffer: wrong.body), "\(method) \(path)")
            }
            // The operator naming acme's connection under bravo finds what a missing one finds, and changes nothing.
            for (method, body) in [(HTTPRequest.Method.patch, JSONValue.object(["skipApplePay": .bool(false)])), (.delete, nil)] {
                let crossed = try await client.merchant(method, "/api/v1/admin/merchants/bravo/shops/\(acmeID)", json: body, key: Self.operatorKey)
                let missing = try await client.merchant(
                    method,
                    "/api/v1/admin/merchants/bravo/shops/shp_0000000000000000",
                    json: body,
                    key: Self.operatorKey
                )
                #expect(crossed.status == missing.status && crossed.status != .ok && crossed.status != .noContent)
                #expect(
                    Data(buffer: crossed.body) == Data(buffer: missing.body).replacing(Data("shp_0000000000000000".utf8), with: Data(acmeID.utf8))
                )
            }
            let listed = try await client.merchant(.get, "/api/v1/admin/merchants/acme/shops", key: Self.operatorKey)
            #expect(listed.json["shops"]?.arrayValue?.first?["skipApplePay"] == .bool(true))
            let bravos = try await client.merchant(.get, "/api/v1/admin/merchants/bravo/shops", key: Self.operatorKey)
            #expect(bravos.json["shops"] == .array([]))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aWebhookThatFailedIsTakenAgainWhenThePlatformSendsItAgain(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run(operatorKey: Self.operatorKey) { client in
            let key = try await client.addMerchant("acme", limits: MerchantLimits(maxOrders: 1))
            _ = try await client.createOrder(id: "first", key: key)
            let path = try await Self.connect(client, "acme")
            let body = try Self.fixture("shopify/orders-create.json")
            // The merchant's limit refuses the order: not taken, so Shopify's retry of the same delivery is.
            let refused = try await Self.shopify(client, path, topic: "orders/create", body: body, id: "r-1")
            #expect(refused.status.code >= 400 && refused.status.code < 500, "\(refused.status) \(String(buffer: refused.body))")
            _ = try await MerchantRegistry(service: client.service).update("acme", MerchantChange(limits: MerchantLimits(maxOrders: 10)))
            try await client.service.merchants.reload()
            let retried = try await Self.shopify(client, path, topic: "orders/create", body: body, id: "r-1")
            #expect(retried.json["result"] == .string("created"), "\(retried.json)")
            let again = try await Self.shopify(client, path, topic: "orders/create", body: body, id: "r-1")
            #expect(again.json["result"] == .string("duplicate"))
        }
    }

    @Test func anOrderPaidWithApplePayIsSkippedWhenTheConnectionSaysSo() async throws {
        try await ServiceHarness().run(operatorKey: Self.operatorKey) { client in
            _ = try await client.addMerchant("acme")
            let path = try await Self.connect(client, "acme")
            var order = try #require(try JSONValue.parse(Data(try Self.fixture("shopify/orders-create.json"))).objectValue)
            order["transactions"] = .array([
                .object([
                    "kind": .string("sale"), "status": .string("success"), "payment_details": .object(["credit_card_wallet": .string("apple_pay")]),
                ])
            ])
            let body = Array(JSONValue.object(order).serialized())
            let skipped = try await Self.shopify(client, path, topic: "orders/create", body: body, id: "ap-1")
            #expect(skipped.json["result"] == .string("skipped"), "\(skipped.json)")
            #expect(try await client.store.orders(OrderFilter(), page: PageRequest(limit: 10)).records.isEmpty)
        }
    }
}
