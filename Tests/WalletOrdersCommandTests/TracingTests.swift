import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Traces from a real `wallet-orders serve` to a real OTLP/HTTP receiver: each request a span when `tracingEndpoint`
/// is set, with no key, token or push token in it; nothing at all when it is not.
@Suite(.timeLimit(.minutes(10))) struct TracingTests {
    static let fetchRoute = "/v1/orders/{orderTypeIdentifier}/{orderIdentifier}"

    /// Requests of every kind a span could leak a secret from: a merchant's key, an order's token, a device's push
    /// token, a download link. Answers the secrets.
    static func traffic(_ server: DevelopmentServer) async throws -> [String] {
        let order = try await server.createOrder()
        let pushToken = String(repeating: "5e", count: 32)
        try await server.register(order, device: "device-1", pushToken: pushToken)
        let fetched = try await server.curl([
            "-o", "/dev/null", "-w", "%{http_code}", "\(server.base)/v1/orders/\(order.type)/\(order.id)",
            "-H", "Authorization: AppleOrder \(order.token)",
        ])
        #expect(fetched == "200")
        let link = try JSONValue.parse(
            Data(
                try await server.curl([
                    "-X", "POST", "\(server.base)/api/v1/orders/\(order.type)/\(order.id)/links",
                    "-H", "Authorization: Bearer \(server.merchantKey)",
                ]).utf8
            )
        )
        // The link names the configured public URL, which for a server on port 0 is not where it listens.
        let url = try #require(link["url"]?.stringValue.flatMap(URL.init(string:)), "\(link)")
        let downloaded = try await server.curl(["-o", "/dev/null", "-w", "%{http_code}", server.base + url.path])
        #expect(downloaded == "200", "\(url): \(downloaded)")
        let reference = url.lastPathComponent
        // Paths that nearly name the link reach no link route, and the reference in them is as secret.
        for path in ["/links/\(reference)/x", "/Links/\(reference)", "/./links/\(reference)", "//links/\(reference)", "/%6Cinks/\(reference)"] {
            let answered = try await server.curl(["--path-as-is", "-o", "/dev/null", "-w", "%{http_code}", server.base + path])
            // `//links/…` is the link route itself (empty segments are dropped), the others no route at all.
            #expect(answered.hasPrefix(path.hasPrefix("//") ? "2" : "4"), "\(path): \(answered)")
        }
        return [server.merchantKey, order.token, pushToken, reference]
    }

    @Test func withATracingEndpointEachRequestReachesTheCollectorAsASpanWithNoSecretInIt() async throws {
        let receiver = try await TraceReceiver()
        let folder = try TemporaryDirectory("tracing-on")
        // Batches leave every 200 ms rather than every 5 s, so that the test need not wait.
        let server = try await DevelopmentServer.start(
            in: folder,
            environment: ["WALLET_ORDERS_TRACING_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "200"]
        )
        defer { server.command.stop() }
        let secrets = try await Self.traffic(server)

        let spans = try await MerchantCommandTests.eventually(seconds: 20) {
            receiver.spans
        } until: { spans in
            spans.contains { $0.name == Self.fetchRoute } && spans.contains { $0.name == "/api/v1/orders" }
        }
        let exports = receiver.exports()
        #expect(!exports.isEmpty)
        for export in exports {
            #expect(export.path == "/v1/traces")
            #expect(export.contentType == "application/x-protobuf")
            #expect(export.error == nil, "an export OpenTelemetry's messages cannot read: \(export.error ?? "")")
        }
        // Named after the route pattern, a server's span, with the method and the status.
        let created = try #require(spans.first { $0.name == "/api/v1/orders" }, "\(spans.map(\.name))")
        #expect(created.kind == 2)
        #expect(created.attributes["http.route"] == "/api/v1/orders")
        #expect(created.attributes["http.request.method"] == "POST")
        #expect(created.attributes["http.response.status_code"] == "201")
        #expect(created.resource["service.name"] == "wallet-orders")
        let fetch = try #require(spans.first { $0.name == Self.fetchRoute })
        #expect(fetch.attributes["http.response.status_code"] == "200")
        #expect(spans.contains { $0.attributes["http.route"]?.hasPrefix("/v1/devices/") == true })

        // No key, token, push token or link in any span: not in its name, not in any attribute.
        for span in spans {
            let text = ([span.name] + span.attributes.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
            for secret in secrets {
                #expect(!text.contains(secret), "a span carries a secret: \(text)")
            }
            #expect(!text.contains("/links/"), "a link download was traced: \(text)")
        }
    }

    @Test func withoutATracingEndpointNothingIsSentEvenWithOpenTelemetrysVariablesSet() async throws {
        let receiver = try await TraceReceiver()
        let folder = try TemporaryDirectory("tracing-off")
        let server = try await DevelopmentServer.start(
            in: folder,
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_TRACES_EXPORTER": "otlp",
                "OTEL_BSP_SCHEDULE_DELAY": "200",
            ]
        )
        defer { server.command.stop() }
        _ = try await Self.traffic(server)
        // Then a server that does trace, to the same receiver, with the same batch delay: once its spans have come,
        // the first server's would have come before them, had it sent any.
        let controlFolder = try TemporaryDirectory("tracing-control")
        let control = try await DevelopmentServer.start(
            in: controlFolder,
            environment: ["WALLET_ORDERS_TRACING_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "200"]
        )
        defer { control.command.stop() }
        _ = try await Self.traffic(control)
        let spans = try await MerchantCommandTests.eventually {
            receiver.spans
        } until: { spans in
            spans.contains { $0.name == Self.fetchRoute } && spans.contains { $0.name == "/api/v1/orders" }
        }
        #expect(spans.filter { $0.name == "/api/v1/orders" }.count == 1, "only the tracing server's order creation was traced")
    }
}
