import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Starts `wallet-orders serve` as `make run` does, with no configuration, and uses it with curl.
@Suite struct ServeCommandTests {
    @Test func serveWithNoConfigurationMakesKeysAndAcceptsTheREADMECurl() async throws {
        let folder = try TemporaryDirectory("serve")
        let repository = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.walletOrdersBinary)
        process.arguments = ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")]
        process.currentDirectoryURL = repository
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }
        try folder.write("out", Data())
        let output = try FileHandle(forWritingTo: folder.url.appendingPathComponent("out"))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        var banner = ""
        for _ in 0..<100 where !banner.contains("Create a first order") {
            try await Task.sleep(for: .milliseconds(100))
            banner = (try? String(contentsOfFile: folder.path("out"), encoding: .utf8)) ?? ""
        }
        let port = try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1)
        let key = try String(contentsOfFile: folder.path("data/merchant-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(banner.contains(key), "the new development key is printed once")
        #expect(FileManager.default.fileExists(atPath: folder.path("data/dev-keys/root-ca.pem")))

        let created = try Command.run("curl", [
            "-s", "-w", "\n%{http_code}", "-X", "POST", "http://127.0.0.1:\(port)/api/v1/orders",
            "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ], directory: repository.path)
        let lines = created.output.split(separator: "\n")
        #expect(lines.last == "201", "\(created.output)")
        let details = try JSONValue.parse(Data(lines.first!.utf8))["orderDetails"]
        // With --port 0 and no publicURL, the URL orders carry names the configured address, not the bound port.
        #expect(details?["webServiceURL"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
        #expect(details?["authenticationToken"]?.stringValue?.count == 64)
        let health = try Command.run("curl", ["-s", "http://127.0.0.1:\(port)/healthz"])
        #expect(health.output == #"{"database":"ok"}"#)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 || process.terminationReason == .uncaughtSignal)
    }
}
