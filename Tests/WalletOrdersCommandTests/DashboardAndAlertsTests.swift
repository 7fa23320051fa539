import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the alerting rules and the Grafana dashboard in `deploy/` read, against the `/metrics` of a real
/// `wallet-orders serve`: every metric they name is one the server exports, and the metrics the alerts stand on move
/// as the server's real work says.
@Suite(.timeLimit(.minutes(10))) struct DashboardAndAlertsTests {
    static let deploy = DevelopmentServer.repository.appendingPathComponent("deploy")

    /// The value of the sample whose line starts with `series` (name and labels exactly as exposed).
    static func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Every series name an exposition holds, from its `# TYPE` lines: a histogram's `_bucket`, `_sum` and `_count` too.
    static func exportedNames(_ text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let fields = line.split(separator: " ")
            guard fields.count == 4 else { continue }
            let name = String(fields[2])
            names.insert(name)
            if fields[3] == "histogram" { names.formUnion(["_bucket", "_sum", "_count"].map { name + $0 }) }
        }
        return names
    }

    /// The metric names each file of the alerts and the dashboard uses, by file.
    static func namesUsed() throws -> [String: Set<String>] {
        let files =
            ["prometheus/alerts.yml", "prometheus/alerts.test.yml"]
            + (try FileManager.default.contentsOfDirectory(atPath: deploy.appendingPathComponent("grafana/dashboards").path))
            .filter { $0.hasSuffix(".json") }.map { "grafana/dashboards/\($0)" }
        var used: [String: Set<String>] = [:]
        for file in files {
            let text = try String(contentsOf: deploy.appendingPathComponent(file), encoding: .utf8)
            used[file] = Set(text.matches(of: /wallet_orders_[a-z0-9_]+/).map { String($0.output) })
        }
        return used
    }

    /// Every section of docs/operations.md that an alert or the dashboard sends the operator to is there.
    @Test func everyRunbookLinkNamesASectionOfTheOperationsGuide() throws {
        let guide = try String(
            contentsOf: DevelopmentServer.repository.appendingPathComponent("docs/operations.md"),
            encoding: .utf8
        )
        // GitHub's anchors: the heading in lower case, without punctuation, spaces as hyphens.
        let anchors = Set(
            guide.split(separator: "\n").filter { $0.hasPrefix("#") }.map { line in
                String(
                    line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                        .filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }
                        .map { $0 == " " ? "-" : $0 }
                )
            }
        )
        var links: [String] = []
        for file in ["prometheus/alerts.yml", "grafana/dashboards/wallet-orders.json"] {
            let text = try String(contentsOf: Self.deploy.appendingPathComponent(file), encoding: .utf8)
            links += text.matches(of: /docs\/operations\.md#([a-z0-9-]+)/).map { String($0.output.1) }
        }
        #expect(links.count >= 11, "\(links)")
        let missing = Set(links).subtracting(anchors).sorted()
        #expect(missing.isEmpty, "docs/operations.md has no section for \(missing)")
    }

    @Test func theAlertsAndTheDashboardReadOnlyMetricsARealServerExports() async throws {
        let folder = try TemporaryDirectory("dashboard")
        let server = try await DevelopmentServer.start(in: folder)
        defer { server.command.stop() }
        let order = try await server.createOrder()
        try await server.register(order, device: "device-1", pushToken: String(repeating: "ab", count: 32))
        await #expect(try server.patch(order, #"{"orderNumber": "D-2"}"#).hasSuffix("200"))
        // A merchant's limit refuses a write: the default merchant may hold one order, and holds one.
        let limited = try await Command.run(
            Command.walletOrdersBinary,
            ["merchants", "update", "default", "--max-orders", "1", "--database", folder.path("data/orders.sqlite")]
        )
        #expect(limited.status == 0, "\(limited.output)\(limited.error)")
        let refused = try await MerchantCommandTests.eventually(seconds: 10) {
            try await server.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(server.base)/api/v1/orders",
                "-H", "Authorization: Bearer \(server.merchantKey)", "-H", "Content-Type: application/json",
                "-d", "@Examples/order.json",
            ])
        } until: {
            $0 == "403"
        }
        #expect(refused == "403")
        // The update's push reached the development server's own local APNs.
        let delivered = #"wallet_orders_push_attempts_total{outcome="delivered"}"#
        let text = try await MerchantCommandTests.eventually(seconds: 20) {
            try await server.curl(["\(server.base)/metrics"])
        } until: {
            Self.value(delivered, in: $0) == 1
        }
        #expect(Self.value(delivered, in: text) == 1, "\(text)")

        let exported = Self.exportedNames(text)
        let used = try Self.namesUsed()
        #expect(used.count >= 3 && used.values.allSatisfy { !$0.isEmpty }, "\(used)")
        for (file, names) in used.sorted(by: { $0.key < $1.key }) {
            let missing = names.subtracting(exported).sorted()
            #expect(missing.isEmpty, "deploy/\(file) reads \(missing), which a real server's /metrics does not export")
        }

        // What the alerts read, as a healthy development server shows it.
        #expect(Self.value("wallet_orders_database_reachable", in: text) == 1)
        #expect(Self.value("wallet_orders_outbox_depth", in: text) == 0)
        #expect(try #require(Self.value("wallet_orders_push_send_duration_seconds_count", in: text)) >= 1)
        let type = order.type
        #expect(Self.value(#"wallet_orders_apns_auth_failures_total{order_type="\#(type)",reason="InvalidProviderToken"}"#, in: text) == 0)
        // The development certificates: good for a year or more from now, and `serve` read them at start.
        for kind in ["signing", "wwdr"] {
            let series = #"wallet_orders_certificate_expiry_timestamp_seconds{order_type="\#(type)",certificate="\#(kind)"}"#
            let expiry = try #require(Self.value(series, in: text), "\(kind) in \(text)")
            #expect(expiry > Date().timeIntervalSince1970 + 300 * 86_400, "\(kind) expires at \(expiry)")
        }
        #expect(Self.value(#"wallet_orders_merchant_limited_total{merchant="default",limit="maxOrders"}"#, in: text) ?? 0 >= 1)
    }

    @Test func apnsRefusingTheProviderTokenIsCountedByOrderTypeAndReason() async throws {
        let folder = try TemporaryDirectory("apns-refused")
        let keys = try await makeDevelopmentKeys(in: folder)
        // The local APNs checks provider tokens with another key under the configured key's ID: it refuses every one.
        let otherKey = try PublicKey(pem: Data(try DevelopmentKeys.shared.chain.apnsKey.publicKeyPEM().utf8))
        let deployment = try await LocalDeployment.start(
            in: folder,
            keys: keys,
            database: folder.path("orders.sqlite"),
            apnsPublicKey: otherKey
        )
        defer { deployment.listener.close() }
        let (instance, command) = try await Instance.start(in: folder, name: "serve", environment: deployment.environment)
        defer { command.stop() }

        let order = try await instance.createOrder()
        #expect(try await instance.register(order, device: "device-1", pushToken: "aa01"))
        #expect(try await instance.patch(order, ["orderNumber": .string("N-2")]) == 2)
        let refused = #"wallet_orders_apns_auth_failures_total{order_type="\#(order.type)",reason="InvalidProviderToken"}"#
        let text = try await MerchantCommandTests.eventually(seconds: 20) {
            try await instance.metrics()
        } until: {
            Self.value(refused, in: $0) == 1
        }
        #expect(Self.value(refused, in: text) == 1, "\(text)\n\(command.output.suffix(2_000))")
        #expect(Self.value(#"wallet_orders_apns_auth_failures_total{order_type="\#(order.type)",reason="BadCertificate"}"#, in: text) == 0)
        #expect(Self.value(#"wallet_orders_push_attempts_total{outcome="failed"}"#, in: text) == 1)
        #expect(Self.value(#"wallet_orders_push_attempts_total{outcome="delivered"}"#, in: text) == 0)
        #expect(deployment.pushes.times(for: "aa01").isEmpty, "APNs took no push")
    }
}

extension Instance {
    /// The text `/metrics` answers (no admin key is configured in these tests).
    func metrics() async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: base + "/metrics")))
        return String(decoding: data, as: UTF8.self)
    }
}
