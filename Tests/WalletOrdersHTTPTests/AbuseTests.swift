import Foundation
import HTTPTypes
import Testing
import WalletOrdersApplication
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// What keeps clients on the internet from guessing tokens at speed, flooding the listing, the merchant API or
/// the log endpoint, or holding connections open: against the real server on a real port.
@Suite(.timeLimit(.minutes(5))) struct AbuseTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func limits(_ change: (inout ClientLimits) -> Void) -> ClientLimits {
        var limits = ClientLimits()
        change(&limits)
        return limits
    }

    func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    @Test(arguments: StoreEngine.allCases)
    func aBurstOfFailedAuthenticationsGets429WhileTheRightTokenIsStillServed(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        let limits = limits { $0.authFailures = RateLimit(burst: 5, per: .seconds(3_600)) }
        try await harness.run(limits: limits) { client in
            let order = try await client.createOrder()
            let other = try await client.createOrder(id: "B-2002")
            #expect(try await client.fetch(order).status == .ok)
            let wrong = ServiceHarness.OrderDetails(type: order.type, id: order.id, token: String(repeating: "0", count: 64))
            for _ in 0..<5 { #expect(try await client.fetch(wrong).status == .unauthorized) }
            let refused = try await client.fetch(wrong)
            #expect(refused.status == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "").map { $0 > 0 } == true)
            #expect(refused.json["error"]?.stringValue?.contains("too many requests") == true)
            #expect(try await client.register(order, device: "device-1", token: wrong.token).status == .tooManyRequests)
            // The device that fetched its order before is served with its right token, fetch and register alike.
            #expect(try await client.fetch(order).status == .ok)
            #expect(try await client.register(order, device: "device-1").status == .created)
            // An order this address never authenticated to waits, even with its right token: otherwise the answer
            // would still tell a right guess from a wrong one.
            #expect(try await client.fetch(other).status == .tooManyRequests)

            let metrics = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(value(#"wallet_orders_rate_limited_requests_total{limit="auth_failures"}"#, in: metrics) == 3)
            #expect(value(#"wallet_orders_rate_limit_burst{limit="auth_failures"}"#, in: metrics) == 5)
        }
    }

    @Test func guessedAdminOperatorAndMerchantKeysGet429AfterTheFailureLimit() async throws {
        let adminKey = "admin-key-for-tests-0123456789"
        let operatorKey = "operator-key-for-tests-0123456789"
        let limits = limits { $0.authFailures = RateLimit(burst: 6, per: .seconds(3_600)) }
        try await ServiceHarness().run(adminKey: adminKey, operatorKey: operatorKey, limits: limits) { client in
            func basic(_ text: String) -> HTTPFields { [.authorization: "Basic " + Data(text.utf8).base64EncodedString()] }
            // The right keys, once each: these pairs of address and key are served whatever the neighbours do.
            #expect(try await client.request(.get, "/admin", headers: basic("admin:\(adminKey)")).status == .ok)
            #expect(try await client.request(.get, "/metrics", headers: [.authorization: "Bearer \(adminKey)"]).status == .ok)

            // Two wrong guesses at each door: all counted against one allowance of this address.
            let guesses: [(String, HTTPFields)] = [
                ("/admin", basic("admin:guess-1")), ("/admin", basic(adminKey)),  // no colon: no password
                ("/metrics", [.authorization: "Bearer guess-2"]), ("/metrics", [.authorization: "Bearer guess-3"]),
                ("/api/v1/orders", [.authorization: "Bearer guess-4"]),
                ("/api/v1/admin/merchants", [.authorization: "Bearer guess-5"]),
            ]
            for (path, headers) in guesses {
                let answer = try await client.request(.get, path, headers: headers)
                #expect(answer.status == .unauthorized, "\(path)")
            }
            for (path, headers) in guesses.prefix(1) + guesses.suffix(3) {
                let answer = try await client.request(.get, path, headers: headers)
                #expect(answer.status == .tooManyRequests, "\(path)")
                #expect(Int(answer.headers[.retryAfter] ?? "").map { $0 > 0 } == true)
            }
            // Not even the right operator key gets through from here now: it never authenticated from this address.
            #expect(
                try await client.request(.get, "/api/v1/admin/merchants", headers: [.authorization: "Bearer \(operatorKey)"]).status
                    == .tooManyRequests
            )
            // The admin key that did is still served.
            #expect(try await client.request(.get, "/admin", headers: basic("someone:\(adminKey)")).status == .ok)
            let metrics = String(buffer: try await client.request(.get, "/metrics", headers: [.authorization: "Bearer \(adminKey)"]).body)
            #expect(value(#"wallet_orders_rate_limited_requests_total{limit="auth_failures"}"#, in: metrics) == 5)
        }
    }

    @Test func theTrustedProxyHeaderIsHonouredOnlyWhenConfigured() async throws {
        let failures = RateLimit(burst: 2, per: .seconds(3_600))
        // Not configured: the header is the client's own claim, and the socket's peer is the client.
        try await ServiceHarness().run(limits: limits { $0.authFailures = failures }) { client in
            let order = try await client.createOrder()
            let wrong = ServiceHarness.OrderDetails(type: order.type, id: order.id, token: "wrong")
            for index in 0..<3 {
                let status = try await client.fetch(wrong, headers: [Self.forwardedFor: "203.0.113.\(index)"]).status
                #expect(status == (index < 2 ? .unauthorized : .tooManyRequests))
            }
            let log = JSONValue.object(["logs": .array([.string("from behind a proxy")])]).serialized()
            _ = try await client.request(.post, "/v1/log", headers: [Self.forwardedFor: "203.0.113.9"], body: log)
            let entries = try await client.store.logs(LogFilter(), page: PageRequest(limit: 10)).records
            #expect(entries.map(\.remoteAddress) == ["127.0.0.1"])
        }
        // Configured: the last address in the header is the client (the one the proxy appended).
        try await ServiceHarness().run(
            limits: limits {
                $0.authFailures = failures
                $0.trustedProxyHeader = "X-Forwarded-For"
            }
        ) { client in
            let order = try await client.createOrder()
            let wrong = ServiceHarness.OrderDetails(type: order.type, id: order.id, token: "wrong")
            for index in 0..<3 {
                let status = try await client.fetch(wrong, headers: [Self.forwardedFor: "198.51.100.1, 203.0.113.7"]).status
                #expect(status == (index < 2 ? .unauthorized : .tooManyRequests))
            }
            // Another client behind the same proxy is not held back by the first one's failures.
            #expect(try await client.fetch(wrong, headers: [Self.forwardedFor: "203.0.113.8"]).status == .unauthorized)
            #expect(try await client.fetch(order, headers: [Self.forwardedFor: "203.0.113.8"]).status == .ok)
            // IPv6 clients are counted by their /64: a fresh address in the same network is the same client.
            for suffix in ["1", "2"] {
                let status = try await client.fetch(wrong, headers: [Self.forwardedFor: "2001:db8:1:2::\(suffix)"]).status
                #expect(status == .unauthorized)
            }
            #expect(try await client.fetch(wrong, headers: [Self.forwardedFor: "2001:db8:1:2::3"]).status == .tooManyRequests)
            // A header that holds no address leaves the socket's peer as the client.
            let log = JSONValue.object(["logs": .array([.string("hello")])]).serialized()
            _ = try await client.request(.post, "/v1/log", headers: [Self.forwardedFor: "203.0.113.7"], body: log)
            _ = try await client.request(
                .post,
                "/v1/log",
                headers: [Self.forwardedFor: "not an address"],
                body: JSONValue.object(["logs": .array([.string("bye")])]).serialized()
            )
            let entries = try await client.store.logs(LogFilter(), page: PageRequest(limit: 10)).records
            #expect(entries.map(\.remoteAddress) == ["127.0.0.1", "203.0.113.7"])
        }
    }

    @Test func theListingAndTheMerchantAPIAreLimitedPerAddressAndPerKey() async throws {
        try await ServiceHarness().run(
            limits: limits {
                $0.listing = RateLimit(burst: 3, per: .seconds(3_600))
                $0.merchant = RateLimit(burst: 4, per: .seconds(3_600))
            }
        ) { client in
            for _ in 0..<3 { #expect(try await client.changed(device: "device-1").status == .noContent) }
            let refused = try await client.changed(device: "device-2")
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
            _ = try await client.createOrder()
            for _ in 0..<3 { #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok) }
            let merchant = try await client.merchant(.get, "/api/v1/orders")
            #expect(merchant.status == .tooManyRequests && merchant.headers[.retryAfter] != nil)
            // A wrong key is refused as before, not counted against the right one.
            #expect(try await client.merchant(.get, "/api/v1/orders", key: "not-the-key-0123456789").status == .unauthorized)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func logMessagesAreCappedFoldedAndOverTheRateLimitDroppedYetAnswered200(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(limits: limits { $0.log = RateLimit(burst: 4, per: .seconds(3_600)) }) { client in
            let many = JSONValue.object(["logs": .array((0..<150).map { .string("message \($0 % 80)") })])
            #expect(try await client.request(.post, "/v1/log", body: many.serialized()).status == .ok)
            let wide = String(repeating: "é", count: 3_000)
            let same = JSONValue.object(["logs": .array([.string(wide), .string("Request failed"), .string("Request failed")])])
            #expect(try await client.request(.post, "/v1/log", body: same.serialized()).status == .ok)
            #expect(try await client.request(.post, "/v1/log", body: Data("{}".utf8)).status == .ok)
            let again = JSONValue.object(["logs": .array([.string("Request failed")])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: again).status == .ok)
            // Over the rate limit: answered 200 all the same, nothing stored.
            let late = JSONValue.object(["logs": .array([.string("too late")])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: late).status == .ok)

            let entries = try await client.store.logs(LogFilter(), page: PageRequest(limit: 500)).records
            // The first 100 messages of 150 (80 distinct, 20 repeated), then the cut one and the folded one.
            #expect(entries.count == 80 + 2)
            #expect(entries.first { $0.message == "message 5" }?.count == 2)
            #expect(entries.first { $0.message == "message 70" }?.count == 1)
            #expect(entries.first { $0.message == "Request failed" }?.count == 3)
            let cut = try #require(entries.first { $0.message.hasPrefix("é") })
            #expect(cut.message.utf8.count == 4_096 && cut.message == String(repeating: "é", count: 2_048))
            #expect(!entries.contains { $0.message == "too late" })

            let metrics = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(value(#"wallet_orders_device_log_dropped_total{reason="over_request_cap"}"#, in: metrics) == 50)
            #expect(value(#"wallet_orders_device_log_messages_total{outcome="stored"}"#, in: metrics) == 82)
            #expect(value(#"wallet_orders_device_log_messages_total{outcome="folded"}"#, in: metrics) == 22)
            #expect(value("wallet_orders_device_log_truncated_total", in: metrics) == 1)
            #expect(value(#"wallet_orders_device_log_requests_dropped_total{reason="rate_limited"}"#, in: metrics) == 1)
            #expect(value(#"wallet_orders_device_log_requests_dropped_total{reason="unreadable"}"#, in: metrics) == 1)
            #expect(value("wallet_orders_device_log_max_bytes", in: metrics) == Double(64 * 1_024 * 1_024))
            let bytes = try #require(value("wallet_orders_device_log_bytes", in: metrics))
            #expect(Int(bytes) == entries.map { DeviceLogEntry.storedSize(of: $0.message) }.reduce(0, +))
        }
    }

    @Test func trickledHeadsAndBodiesAreCutOffWhileOtherClientsAreServed() async throws {
        let limits = limits {
            $0.headerTimeout = .seconds(1)
            $0.bodyTimeout = .seconds(1)
            $0.idleTimeout = .seconds(30)
        }
        try await ServiceHarness().run(limits: limits) { client in
            let port = try #require(client.client.port)
            // A connection that sends nothing is left to the idle timeout (30 s here), not the header timeout.
            let idle = try RawConnection(port: port)
            // A head trickled a byte every 200 ms would take seconds; it is cut off after the header timeout.
            let head = try RawConnection(port: port)
            let headClosed = try await head.trickle(
                "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + String(repeating: "a", count: 200),
                every: .milliseconds(200),
                giveUpAfter: .seconds(20)
            )
            #expect(headClosed)
            // A body trickled after a complete head: cut off after the body timeout.
            let body = try RawConnection(port: port)
            #expect(body.send("POST /v1/log HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"))
            #expect(
                try await body.trickle(
                    "{\"logs\": [\"" + String(repeating: "b", count: 190),
                    every: .milliseconds(200),
                    giveUpAfter: .seconds(20)
                )
            )
            // The idle connection, open since before the trickled head that the header timeout cut off: still open.
            #expect(!idle.isClosed)
            // Everyone else is served meanwhile.
            #expect(try await client.request(.get, "/healthz").status == .ok)
            let metrics = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(value(#"wallet_orders_slow_client_closes_total{phase="header"}"#, in: metrics) == 1)
            #expect(value(#"wallet_orders_slow_client_closes_total{phase="body"}"#, in: metrics) == 1)
        }
    }

    @Test func connectionsPastTheCapPerClientAreClosedAtOnceAndAFreshOneIsServedOnceTheOthersAreReleased() async throws {
        try await ServiceHarness().run(limits: limits { $0.maxConnectionsPerClient = 4 }) { client in
            // The test client's own connection is one of 127.0.0.1's four.
            #expect(try await client.request(.get, "/healthz").status == .ok)
            let port = try #require(client.client.port)
            // Three more, each served (so counted) before the next opens: connections are accepted on several
            // threads, in no set order.
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: port)
                #expect(connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"))
                let answer = try await connection.receive(within: .seconds(60)) { $0.contains(#""database":"ok""#) }
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
                held.append(connection)
            }
            let extra = try (0..<2).map { _ in try RawConnection(port: port) }
            for connection in extra { #expect(try await connection.closes(within: .seconds(60))) }
            for connection in held { #expect(!connection.isClosed) }
            let metrics = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(value("wallet_orders_client_connections_refused_total", in: metrics) == 2)

            // Released, the held connections make room: a fresh one is served (once the server saw them close).
            held.removeAll()
            var served = ""
            let end = ContinuousClock.now + .seconds(60)
            while !served.hasPrefix("HTTP/1.1 200"), ContinuousClock.now < end {
                let fresh = try RawConnection(port: port)
                _ = fresh.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                served = try await fresh.receive(within: .seconds(10)) { $0.contains(#""database":"ok""#) }
                if !served.hasPrefix("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await ServiceHarness().run(limits: limits { $0.idleTimeout = .seconds(1) }) { client in
            let idle = try RawConnection(port: try #require(client.client.port))
            #expect(idle.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"))
            let clock = ContinuousClock()
            let end = clock.now + .seconds(20)
            while !idle.isClosed, clock.now < end { try await Task.sleep(for: .milliseconds(100)) }
            #expect(idle.isClosed)
        }
    }
}
