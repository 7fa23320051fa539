import Foundation
import HTTPTypes
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// What HTTP/1.1 asks of a server at its edge, against the real server on a real port with raw sockets: one `Host`
/// per request (and in development only this machine's names), `Expect: 100-continue` answered, and error
/// messages that do not send a request's input back whole.
@Suite(.timeLimit(.minutes(5))) struct HTTPConformanceTests {
    /// The status and JSON body of the final response in `text`.
    func response(_ text: String) -> (status: Int?, json: JSONValue) {
        var rest = Substring(text)
        while rest.hasPrefix("HTTP/1.1 1"), let end = rest.range(of: "\r\n\r\n") { rest = rest[end.upperBound...] }
        let status = Int(rest.dropFirst("HTTP/1.1 ".count).prefix(3))
        let body = rest.range(of: "\r\n\r\n").map { rest[$0.upperBound...] } ?? ""
        return (status, (try? JSONValue.parse(Data(body.utf8))) ?? .null)
    }

    @Test func aRequestWithoutAHostHeaderOrWithTwoIsRefusedWith400AndAJSONBody() async throws {
        try await ServiceHarness().run { client in
            let port = try #require(client.client.port)
            let none = response(try await RawConnection(port: port).exchange("GET /healthz HTTP/1.1\r\n\r\n"))
            #expect(none.status == 400)
            #expect(none.json["error"]?.stringValue?.contains("no Host header") == true, "\(none.json)")
            let two = response(
                try await RawConnection(port: port).exchange(
                    "GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: elsewhere.example\r\n\r\n"
                )
            )
            #expect(two.status == 400)
            #expect(two.json["error"]?.stringValue?.contains("more than one Host header") == true, "\(two.json)")
            // One Host, whatever its name, outside development.
            let one = response(try await RawConnection(port: port).exchange("GET /healthz HTTP/1.1\r\nHost: orders.example.com\r\n\r\n"))
            #expect(one.status == 200)
        }
    }

    @Test func inDevelopmentOnlyLoopbackNamesAreAnsweredSoThatNoRebindingPageReadsTheService() async throws {
        try await ServiceHarness().run(hosts: .loopback()) { client in
            let port = try #require(client.client.port)
            for host in ["localhost", "localhost:\(port)", "127.0.0.1:\(port)", "[::1]:8080", "LOCALHOST"] {
                let answered = response(try await RawConnection(port: port).exchange("GET /healthz HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
                #expect(answered.status == 200, "\(host)")
            }
            for host in ["rebind.example.com:\(port)", "127.0.0.1.nip.io", "localhost.example", "localhost:80x", "[::1"] {
                let refused = response(try await RawConnection(port: port).exchange("GET /healthz HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
                #expect(refused.status == 421, "\(host)")
                #expect(refused.json["error"]?.stringValue?.contains("DNS rebinding") == true, "\(refused.json)")
            }
            // Every route, not only the playground's.
            let admin = response(try await RawConnection(port: port).exchange("GET /metrics HTTP/1.1\r\nHost: rebind.example.com\r\n\r\n"))
            #expect(admin.status == 421)
        }
    }

    @Test func aClientExpecting100ContinueIsAskedForItsBodyOrAnsweredAtOnceWhenTheBodyIsNotWanted() async throws {
        try await ServiceHarness().run { client in
            let port = try #require(client.client.port)
            // The log endpoint reads the body: 100 Continue first, then, once the body came, 200.
            let body = #"{"logs": ["sent after 100 Continue"]}"#
            let log = try RawConnection(port: port)
            #expect(
                log.send(
                    "POST /v1/log HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
                )
            )
            let interim = try await log.receive(within: .seconds(60)) { $0.contains("\r\n\r\n") }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
            let logged = response(try await log.exchange(body))
            #expect(logged.status == 200)
            let entries = try await client.store.logs(LogFilter(), page: PageRequest(limit: 10)).records
            #expect(entries.map(\.message) == ["sent after 100 Continue"])

            // A registration body whose Content-Length is over the limit: 413 at once, never asked for.
            let large = try RawConnection(port: port)
            let refused = try await large.exchange(
                "POST /v1/devices/device-1/registrations/order.com.example.dev/A-1 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: AppleOrder 0123456789abcdef\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n",
                within: .seconds(3)
            )
            #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused)")
            #expect(response(refused).json["error"] == .string("the request body is too large"))

            // A merchant call with a wrong key: 401 at once, the body never asked for.
            let wrongKey = try await RawConnection(port: port).exchange(
                "POST /api/v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer not-the-key-0123456789\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n",
                within: .seconds(3)
            )
            #expect(wrongKey.hasPrefix("HTTP/1.1 401"), "\(wrongKey)")
        }
    }

    @Test func anErrorMessageQuotesAtMost64CharactersOfTheRequest() async throws {
        try await ServiceHarness().run { client in
            let digits = String(repeating: "1", count: 200_000)
            let response = try await client.request(
                .post,
                "/api/v1/orders",
                headers: [.authorization: "Bearer \(ServiceHarness.merchantKey)", .contentType: "application/json"],
                body: Data(#"{"orderNumber": \#(digits)}"#.utf8)
            )
            #expect(response.status == .badRequest)
            let message = try #require(response.json["error"]?.stringValue)
            #expect(message.count < 200, "\(message.prefix(300))")
            #expect(message.contains(String(repeating: "1", count: 64) + "…"), "\(message)")
            #expect(!message.contains(String(repeating: "1", count: 65)))
            #expect(message.hasPrefix("the body is not valid JSON: the number "), "\(message)")

            // A long string a validation problem quotes is cut the same way, spaces and all.
            var order = try #require(SampleOrder.json(orderIdentifier: "A-1").objectValue)
            for key in ["updatedAt", "createdAt", "merchant"] { order.removeValue(forKey: key) }
            order["status"] = .string(String(repeating: "not a status ", count: 300))
            let invalid = try await client.merchant(.post, "/api/v1/orders", json: .object(order))
            #expect(invalid.status == .badRequest)
            let problem = invalid.json["problems"]?.arrayValue?.first { $0["path"] == .string("status") }
            let quoted = try #require(problem?["message"]?.stringValue, "\(String(buffer: invalid.body).prefix(500))")
            #expect(quoted.hasPrefix(#""not a status not a status"#) && quoted.contains(#"…" is not one of"#), "\(quoted)")
            #expect(quoted.count < 200)
        }
    }
}
