import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

/// The operator's console against the real server, on each engine: the search, an order's page, the package, the
/// actions and who may take them, the charts, and bad input.
@Suite(.timeLimit(.minutes(5))) struct AdminConsoleTests {
    static let adminKey = "admin-key-for-the-console-0123456789"
    static let operatorKey = "operator-key-for-the-console-0123456789"

    func page(_ client: ServiceHarness.Client, _ uri: String, key: String = adminKey) async throws -> String {
        let response = try await client.request(.get, uri, headers: [.authorization: "Bearer \(key)"])
        #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
        return String(buffer: response.body)
    }

    @Test(arguments: StoreEngine.allCases)
    func anOrderFoundByItsTrackingNumberShowsItsVersionsWithWhatChangedItsDevicesAndPushes(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey, operatorKey: Self.operatorKey) { client in
            let order = try await client.createOrder(id: "A-7001") { fields in
                fields["orderNumber"] = .string("7001")
            }
            _ = try await client.createOrder(id: "A-7002")
            #expect(try await client.register(order, device: "console-phone", pushToken: "feedface00112233").status == .created)
            let patch: JSONValue = .object([
                "fulfillments": .array([
                    .object([
                        "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
                        "status": .string("shipped"), "trackingNumber": .string("1Z999AA10123456784"),
                        "carrier": .string("UPS"),
                    ])
                ])
            ])
            let patched = try await client.patch(order, patch)
            #expect(patched.status == .ok, "\(String(buffer: patched.body))")

            for search in ["1Z999AA10123456784", "7001", "console-phone", "FEEDFACE", order.id] {
                let list = try await page(client, "/admin?q=\(search)")
                #expect(list.contains(">\(order.id)</a>"), "\(search) finds the order")
                #expect(!list.contains(">A-7002</a>"), "\(search) finds no other")
            }
            let list = try await page(client, "/admin")
            #expect(list.contains(">A-7002</a>") && list.contains(">\(order.id)</a>"))

            let html = try await page(client, "/admin/order?type=\(order.type)&id=\(order.id)")
            #expect(html.contains("<h1>Order \(order.id)</h1>"))
            #expect(html.contains("<td>merchant:default</td>"), "who made the version")
            #expect(
                html.contains(
                    "<code>fulfillments[0].trackingNumber</code>: <del>&quot;EP123456789&quot;</del> → <ins>&quot;1Z999AA10123456784&quot;</ins>"
                ),
                "\(html)"
            )
            #expect(html.contains("<td>console-phone</td>"))
            #expect(html.contains(#"<td class="pending">pending</td>"#), "the push the update queued")
            #expect(html.contains(#"<span class="valid">the verifier finds nothing wrong</span>"#), "\(html)")
            #expect(!html.contains(order.token), "the authentication token never appears")
            #expect(!html.contains("<form method=\"post\""), "no actions with the admin key")
            #expect(!html.contains("/admin/order/package"), "no download with the admin key")

            // The package a device gets, through the console: it holds the token the page hides, so the operator key
            // only, never the read-only admin key.
            let uri = "/admin/order/package?type=\(order.type)&id=\(order.id)"
            let refused = try await client.request(.get, uri, headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(refused.status == .forbidden && refused.json["error"]?.stringValue?.contains("operator key") == true)
            #expect(!String(buffer: refused.body).contains(order.token))
            let basic = Data("admin:\(Self.adminKey)".utf8).base64EncodedString()
            #expect(try await client.request(.get, uri, headers: [.authorization: "Basic \(basic)"]).status == .forbidden)
            #expect(try await page(client, "/admin/order?type=\(order.type)&id=\(order.id)", key: Self.operatorKey).contains("/admin/order/package?"))
            let package = try await client.request(.get, uri, headers: [.authorization: "Bearer \(Self.operatorKey)"])
            #expect(package.status == .ok)
            #expect(PackageVerifier.verify(Data(buffer: package.body)).isValid)
            let fetched = try await client.fetch(order)
            #expect(Data(buffer: package.body) == Data(buffer: fetched.body))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func onlyTheOperatorKeyFromTheConsoleItselfSendsPushesAgainOrRevokesALink(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey, operatorKey: Self.operatorKey) { client in
            let order = try await client.createOrder(id: "A-7101")
            #expect(try await client.register(order, device: "phone-1").status == .created)
            let link = try await client.merchant(.post, "/api/v1/orders/\(order.type)/\(order.id)/links", json: .object([:]))
            #expect(link.status == .created, "\(String(buffer: link.body))")
            let linkID = try #require(link.json["id"]?.stringValue)
            let resend = "/admin/order/resend?type=\(order.type)&id=\(order.id)"
            let revoke = "/admin/order/revoke-link?type=\(order.type)&id=\(order.id)&link=\(linkID)"
            let sameOrigin: HTTPFields = [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]

            func post(_ uri: String, key: String, headers: HTTPFields) async throws -> TestResponse {
                var headers = headers
                headers[.authorization] = "Bearer \(key)"
                return try await client.request(.post, uri, headers: headers)
            }
            let byAdmin = try await post(resend, key: Self.adminKey, headers: sameOrigin)
            #expect(byAdmin.status == .forbidden)
            #expect(byAdmin.json["error"]?.stringValue?.contains("operator key") == true)
            let crossSite = try await post(resend, key: Self.operatorKey, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(crossSite.status == .forbidden)
            #expect(try await post(resend, key: Self.operatorKey, headers: [:]).status == .forbidden, "no sign of where it came from")
            #expect(try await client.store.pushes(PushFilter(), page: PageRequest(limit: 10)).records.isEmpty, "nothing queued")

            let operatorPage = try await page(client, "/admin/order?type=\(order.type)&id=\(order.id)", key: Self.operatorKey)
            #expect(operatorPage.contains("Send pushes to its devices again"))
            #expect(operatorPage.contains(">Revoke</button>"))

            let sent = try await post(resend, key: Self.operatorKey, headers: sameOrigin)
            #expect(sent.status == .seeOther)
            let location = try #require(sent.headers[.location])
            #expect(location.hasSuffix("&done=resent&count=1"), "\(location)")
            #expect(try await page(client, location, key: Self.operatorKey).contains("Pushes queued again: 1."))
            #expect(try await client.store.pushes(PushFilter(), page: PageRequest(limit: 10)).records.count == 1)

            #expect(try await post(revoke, key: Self.adminKey, headers: sameOrigin).status == .forbidden)
            #expect(try await post(revoke, key: Self.operatorKey, headers: sameOrigin).status == .seeOther)
            #expect(try await client.store.orderLinks(type: order.type, id: order.id).first?.revokedAt != nil)
            #expect(try await post(revoke, key: Self.operatorKey, headers: sameOrigin).status == .notFound, "revoked already")
            let after = try await page(client, "/admin/order?type=\(order.type)&id=\(order.id)", key: Self.operatorKey)
            #expect(after.contains(#"<td class="revoked">revoked 20"#))
            #expect(!after.contains(">Revoke</button>"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theActivityPageDrawsItsChartsAndBadInputIsNamed(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey, operatorKey: Self.operatorKey) { client in
            let order = try await client.createOrder(id: "A-7201")
            #expect(try await client.register(order, device: "phone-1").status == .created)
            let html = try await page(client, "/admin/activity?days=7")
            #expect(html.contains("<h1>Activity of every merchant</h1>"))
            #expect(html.components(separatedBy: "<svg class=\"chart\"").count == 6, "five charts")
            let today = String(RFC3339.format(harness.clock.now).prefix(10).dropFirst(5))
            #expect(html.contains("<title>\(today): created 1 orders</title>"), "\(html)")
            #expect(html.contains("<title>\(today): added 1 orders</title>"))
            #expect(html.contains("1 of the 1 orders created in these 7 days (100.0%)"))
            #expect(!html.contains("<script"))

            for (uri, field) in [
                ("/admin?status=lost", "status"), ("/admin?from=yesterday", "from"), ("/admin?sort=sideways", "sort"),
                ("/admin?limit=0", "limit"), ("/admin?after=x", "after"), ("/admin?merchant=nobody", "merchant"),
            ] {
                let response = try await client.request(.get, uri, headers: [.authorization: "Bearer \(Self.adminKey)"])
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.json["problems"]?.arrayValue?.first?["path"]?.stringValue == field, "\(uri): \(response.json)")
            }
            for uri in ["/admin/activity?days=8", "/admin/order?type=x", "/admin/order/package"] {
                let response = try await client.request(.get, uri, headers: [.authorization: "Bearer \(Self.operatorKey)"])
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.json["error"]?.stringValue != nil)
            }
            let missing = try await client.request(
                .get,
                "/admin/order?type=\(order.type)&id=nope",
                headers: [.authorization: "Bearer \(Self.adminKey)"]
            )
            #expect(missing.status == .notFound)
        }
    }
}
