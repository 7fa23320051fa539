import Foundation
import HummingbirdTesting
import Testing
import WalletOrdersAPNSServer
import WalletOrdersConformance
import WalletOrdersModel
import WalletOrdersTesting

/// `wallet-orders conformance` against `wallet-orders serve`, run as a user would run both: the service on each
/// engine behind TLS, pushing to the kit's local APNs, its order changed through the merchant API with curl.
@Suite(.timeLimit(.minutes(10))) struct ConformanceServeTests {
    @Test(arguments: StoreEngine.allCases)
    func ourServerPassesEveryRule(engine: StoreEngine) async throws {
        let folder = try TemporaryDirectory("conformance-serve")
        let made = try await Command.run(Command.walletOrdersBinary, ["keys", "dev", "--out", folder.path("keys")])
        try #require(made.status == 0, "\(made.error)")
        let keys = Self.settings(try String(contentsOfFile: folder.path("keys/dev.env"), encoding: .utf8))
        // The kit's local APNs keeps its TLS identity here: made now, so that its CA file exists when serve starts.
        let apnsFolder = folder.url.appendingPathComponent("apns")
        let prepared = try await Command.run(
            Command.walletOrdersBinary,
            ["conformance", "--make-apns-tls", "--apns-tls-folder", apnsFolder.path]
        )
        let apnsCA = LocalAPNS.TLSIdentity.certificateAuthorityFile(in: apnsFolder).path
        try #require(prepared.status == 0 && prepared.output == apnsCA + "\n", "\(prepared.output)\(prepared.error)")
        let (apnsPort, servePort) = (try freePort(), try freePort())
        // A PostgreSQL cluster of the test's own: on the shared one, other tests' transactions hold back the listing's
        // tag, and an unchanged order is listed again (docs/device-api.md, "The listing tag").
        let cluster = engine == .postgres ? try await PostgresCluster.start() : nil
        let database = try await cluster?.createDatabase() ?? folder.path("data/orders.sqlite")
        let httpsCA = try folder.write("https-ca.pem", Data(TestChain.shared.tls.certificateAuthority.pem.utf8))

        let run = {
            try await TLSFront(upstream: "http://127.0.0.1:\(servePort)").application().test(.live) { client in
                let front = "https://127.0.0.1:\(try #require(client.port))"
                var environment = keys
                environment["WALLET_ORDERS_MERCHANT_KEY"] = "merchant-key-for-the-conformance-kit"
                environment["WALLET_ORDERS_PUBLIC_URL"] = front
                environment["WALLET_ORDERS_TEMPLATE"] = SampleOrder.templateFolder.path
                environment["WALLET_ORDERS_APNS_ENVIRONMENT"] = "https://127.0.0.1:\(apnsPort)"
                environment["WALLET_ORDERS_APNS_CA"] = apnsCA
                let serve = try ServeProcess(["--port", "\(servePort)", "--database", database], environment: environment, in: folder)
                defer { serve.stop() }
                try #require(await serve.waitFor("serving on"), "\(serve.output)")

                let merchant = "http://127.0.0.1:\(servePort)/api/v1/orders"
                let authorization = "Authorization: Bearer merchant-key-for-the-conformance-kit"
                let created = try await Command.run(
                    "curl",
                    ["-sf", "-X", "POST", merchant, "-H", authorization, "-H", "Content-Type: application/json", "-d", "@Examples/order.json"],
                    directory: SampleOrder.repository.path
                )
                try #require(created.status == 0, "\(created.error)")
                let details = try #require(JSONValue.parse(Data(created.output.utf8))["orderDetails"], "\(created.output)")
                let orderDetails = try folder.write("order-details.json", details.serialized())
                let order = "\(merchant)/\(details["orderTypeIdentifier"]?.stringValue ?? "")/\(details["orderIdentifier"]?.stringValue ?? "")"
                let patch = { (status: String) in
                    "curl -sf -X PATCH '\(order)' -H '\(authorization)' -H 'Content-Type: application/merge-patch+json' -d '{\"status\": \"\(status)\"}'"
                }
                let kit = try await Command.run(
                    Command.walletOrdersBinary,
                    [
                        "conformance", "--order-details", orderDetails, "--ca", folder.path("keys/root-ca.pem"), "--https-ca", httpsCA,
                        "--update", patch("completed"), "--unchanged-update", patch("completed"),
                        "--apns", "127.0.0.1:\(apnsPort)", "--apns-tls-folder", apnsFolder.path,
                        "--apns-key", folder.path("keys/apns-public.pem"),
                        "--apns-key-id", keys["WALLET_ORDERS_APNS_KEY_ID"] ?? "", "--apns-team-id", keys["WALLET_ORDERS_APNS_TEAM_ID"] ?? "",
                        "--json", "--junit", folder.path("junit.xml"),
                    ]
                )
                return (kit, serve.output)
            }
        }
        let outcome: (Command.Result, String)
        do {
            outcome = try await run()
        } catch {
            await cluster?.stop()
            throw error
        }
        await cluster?.stop()

        let (kit, serveOutput) = outcome
        #expect(kit.status == 0, "\(kit.output)\n\(kit.error)\n\(serveOutput)")
        let report = try JSONValue.parse(Data(kit.output.utf8))
        let rules = try #require(report["rules"]?.arrayValue, "\(kit.output)")
        #expect(rules.count == Rule.all.count)
        for rule in rules {
            #expect(rule["status"] == .string("pass"), "\(String(decoding: rule.serialized(), as: UTF8.self))")
        }
        #expect(report["timings"]?["fetchMilliseconds"] != nil, "the time from the update to the device's fetch is reported")
        let junit = try String(contentsOfFile: folder.path("junit.xml"), encoding: .utf8)
        #expect(junit.contains("tests=\"\(Rule.all.count)\" failures=\"0\" skipped=\"0\""), "\(junit)")
    }

    /// The `NAME=value` lines of a dev.env file.
    static func settings(_ text: String) -> [String: String] {
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return settings
    }
}
