import Foundation
import HTTPTypes
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// `/metrics` in Prometheus' text format after real traffic, and the request id every response carries.
@Suite(.timeLimit(.minutes(5))) struct MetricsTests {
    /// The value of the sample whose line starts with `series` (name and labels exactly as exposed).
    func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    @Test(arguments: StoreEngine.allCases)
    func trafficShowsUpByRouteAndStatusTimedWithPackagesAndTheOutbox(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            #expect(try await client.register(order, device: "device-1").status == .created)
            #expect(try await client.fetch(order).status == .ok)
            #expect(try await client.fetch(order).status == .ok)
            #expect(try await client.patch(order, .object(["status": .string("completed")])).status == .ok)
            #expect(try await client.request(.get, "/v1/no/such/route").status == .notFound)
            let wrong = ServiceHarness.OrderDetails(type: order.type, id: order.id, token: String(repeating: "0", count: 64))
            #expect(try await client.fetch(wrong).status == .unauthorized)

            let response = try await client.request(.get, "/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: response.body)
            let fetch = "/v1/orders/{orderTypeIdentifier}/{orderIdentifier}"
            #expect(value(#"wallet_orders_http_requests_total{route="\#(fetch)",method="GET",status="200"}"#, in: text) == 2, "\(text)")
            #expect(value(#"wallet_orders_http_requests_total{route="\#(fetch)",method="GET",status="401"}"#, in: text) == 1)
            #expect(value(#"wallet_orders_http_requests_total{route="/api/v1/orders",method="POST",status="201"}"#, in: text) == 1)
            #expect(value(#"wallet_orders_http_requests_total{route="unmatched",method="GET",status="404"}"#, in: text) == 1)
            // Timed by route and method, whatever the status: the two fetches and the refused one.
            #expect(value(#"wallet_orders_http_request_duration_seconds_count{route="\#(fetch)",method="GET"}"#, in: text) == 3)
            #expect(text.contains("# TYPE wallet_orders_http_request_duration_seconds histogram"))
            #expect(value("wallet_orders_database_reachable", in: text) == 1)
            // Every outcome is there from the start, at 0 until it happens.
            #expect(value(#"wallet_orders_push_attempts_total{outcome="failed"}"#, in: text) == 0)
            #expect(value(#"wallet_orders_webhook_attempts_total{outcome="failed"}"#, in: text) == 0)
            // Created, then patched: two builds; both fetches served the stored package.
            #expect(value("wallet_orders_package_builds_total", in: text) == 2)
            #expect(value("wallet_orders_package_cache_hits_total", in: text) == 2)
            // One write at a time: none waited for a turn.
            #expect(value("wallet_orders_merchant_write_waits_total", in: text) == 0)
            // No push worker here: the update's push waits.
            #expect(value(#"wallet_orders_pushes{status="pending"}"#, in: text) == 1)
            #expect(value("wallet_orders_outbox_depth", in: text) == 1)
            #expect(text.contains("# TYPE wallet_orders_http_requests_total counter"))
            let openAPI = try await client.request(.get, "/openapi.json")
            #expect(openAPI.status == .ok && openAPI.json["openapi"] == .string("3.1.0"))
            // Without an admin key, metrics are open and the admin page is off.
            #expect(try await client.request(.get, "/admin").status == .notFound)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func everyResponseCarriesARequestIdAndMetricsNeedTheAdminKeyWhenOneIsSet(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: "admin-key-for-tests-0123456789") { client in
            let first = try await client.request(.get, "/healthz")
            let second = try await client.request(.get, "/v1/no/such/route")
            let ids = [first, second].compactMap { $0.headers[HTTPField.Name("x-request-id")!] }
            #expect(ids.count == 2 && ids[0] != ids[1] && !ids[0].isEmpty, "\(ids) \(second.status) \(String(buffer: second.body))")

            #expect(try await client.request(.get, "/metrics").status == .unauthorized)
            let allowed = try await client.request(.get, "/metrics", headers: [.authorization: "Bearer admin-key-for-tests-0123456789"])
            #expect(allowed.status == .ok)
        }
    }

    @Test func merchantsShowUpByNameWithWhatTheyHoldAndTheirLimits() async throws {
        let harness = try ServiceHarness(.sqlite)
        try await harness.run { client in
            let key = try await client.addMerchant("acme", limits: MerchantLimits(maxOrders: 1))
            _ = try await client.createOrder(key: key)
            _ = try await client.merchant(.post, "/api/v1/orders", json: .object([:]), key: key)
            var body = SampleOrder.json(orderIdentifier: "second").objectValue ?? [:]
            for field in ["updatedAt", "createdAt", "merchant"] { body.removeValue(forKey: field) }
            #expect(try await client.merchant(.post, "/api/v1/orders", json: .object(body), key: key).status == .forbidden)
            let text = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(value(#"wallet_orders_merchant_requests_total{merchant="acme"}"#, in: text) == 3, "\(text)")
            #expect(value(#"wallet_orders_merchant_limited_total{merchant="acme",limit="maxOrders"}"#, in: text) == 1)
            #expect(value(#"wallet_orders_merchant_orders{merchant="acme"}"#, in: text) == 1)
            #expect(value(#"wallet_orders_merchant_max_orders{merchant="acme"}"#, in: text) == 1)
            #expect(value("wallet_orders_merchants", in: text) == 2)
        }
    }
}
