import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Starts `wallet-orders serve` (and `apns-sandbox`) as a user would, and uses them with curl.
@Suite struct ServeCommandTests {
    let repository = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()

    @Test func serveWithNoConfigurationMakesKeysAndAcceptsTheREADMECurl() async throws {
        let folder = try TemporaryDirectory("serve")
        let serve = try BackgroundCommand(["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")],
                                          in: folder, name: "serve", directory: repository)
        let banner = try await serve.waitFor("Create a first order")
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
        #expect(serve.stop())
    }

    /// The README's push tour: `apns-sandbox` on the development keys, `serve` pointed at it with two variables;
    /// an update reaches every registered device.
    @Test func anUpdateReachesTheAPNSSandboxThroughServe() async throws {
        let folder = try TemporaryDirectory("sandbox")
        let keys = folder.path("data/dev-keys")
        _ = try Command.run(Command.walletOrdersBinary, ["keys", "dev", "--out", keys])
        let sandbox = try BackgroundCommand(["apns-sandbox", "--port", "0", "--keys", keys], in: folder, name: "apns")
        let sandboxBanner = try await sandbox.waitFor("WALLET_ORDERS_APNS_CA")
        let apnsURL = try #require(sandboxBanner.firstMatch(of: /WALLET_ORDERS_APNS_ENVIRONMENT=(\S+)/)?.1)

        let serve = try BackgroundCommand(
            ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")], in: folder, name: "serve",
            directory: repository,
            environment: ["WALLET_ORDERS_APNS_ENVIRONMENT": String(apnsURL),
                          "WALLET_ORDERS_APNS_CA": "\(keys)/local-apns-ca.pem"])
        let banner = try await serve.waitFor("Create a first order")
        #expect(banner.contains("Pushes go to the local APNs at \(apnsURL)"), "\(banner)")
        let base = "http://127.0.0.1:\(try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1))"
        let key = try String(contentsOfFile: folder.path("data/merchant-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        func curl(_ arguments: [String]) throws -> String {
            try Command.run("curl", ["-s", "-w", "%{http_code}"] + arguments, directory: repository.path).output
        }
        let merchant = ["-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json"]
        let created = try curl(["-X", "POST", "\(base)/api/v1/orders"] + merchant + ["-d", "@Examples/order.json"])
        #expect(created.hasSuffix("201"), "\(created)")
        let order = try JSONValue.parse(Data(created.dropLast(3).utf8))["orderDetails"]
        let type = try #require(order?["orderTypeIdentifier"]?.stringValue)
        let id = try #require(order?["orderIdentifier"]?.stringValue)
        let token = try #require(order?["authenticationToken"]?.stringValue)
        for (device, pushToken) in [("device-1", "a1b2c3"), ("device-2", "d4e5f6")] {
            let registered = try curl([
                "-X", "POST", "\(base)/v1/devices/\(device)/registrations/\(type)/\(id)",
                "-H", "Authorization: AppleOrder \(token)", "-H", "Content-Type: application/json",
                "-d", #"{"pushToken":"\#(pushToken)"}"#,
            ])
            #expect(registered.hasSuffix("201"), "\(registered)")
        }
        let patched = try curl(["-X", "PATCH", "\(base)/api/v1/orders/\(type)/\(id)"] + merchant
            + ["-d", #"{"status":"completed"}"#])
        #expect(patched.hasSuffix("200"), "\(patched)")

        let output = try await sandbox.waitFor("token=d4e5f6")
        let pushes = output.split(separator: "\n").filter { $0.hasPrefix("push ") }
        #expect(pushes.count == 2, "\(output)")
        for push in pushes {
            #expect(push.hasPrefix("push 200 topic=\(type) "), "\(push)")
            #expect(push.contains("type=background priority=5 body={}"), "\(push)")
        }
        #expect(serve.stop())
        #expect(sandbox.stop())
    }

    /// `doctor` prints serve's start-up checks; `serve` refuses to start on the same problems, one line each.
    @Test func doctorAndServeReportEveryProblemWithTheConfiguration() throws {
        let folder = try TemporaryDirectory("doctor")
        let keys = folder.path("keys")
        var environment = try makeDevelopmentKeys(in: folder)
        environment["WALLET_ORDERS_MERCHANT_KEY"] = "merchant-key-0123456789"
        environment["WALLET_ORDERS_PUBLIC_URL"] = "https://orders.example.com"
        let database = ["--database", folder.path("data/orders.sqlite")]

        let healthy = try Command.run(Command.walletOrdersBinary, ["doctor"] + database, environment: environment)
        #expect(healthy.status == 0, "\(healthy.output)\(healthy.error)")
        #expect(healthy.output.contains("ok       order type order.com.example.dev: the signing certificate, its key and the WWDR certificate match"))

        environment["WALLET_ORDERS_WWDR_CERT"] = "\(keys)/root-ca.pem"
        environment["WALLET_ORDERS_APNS_KEY"] = "\(keys)/order-type.key"
        let broken = try Command.run(Command.walletOrdersBinary, ["doctor"] + database, environment: environment)
        #expect(broken.status == 1)
        let problems = broken.output.split(separator: "\n").filter { $0.hasPrefix("problem") }
        #expect(problems.count == 2, "\(broken.output)")
        #expect(problems.contains { $0.contains("was not issued by the WWDR certificate in \(keys)/root-ca.pem") })
        #expect(problems.contains { $0.contains("\(keys)/order-type.key is not a P-256 key") })

        let serve = try Command.run(Command.walletOrdersBinary, ["serve", "--port", "0"] + database, environment: environment)
        #expect(serve.status != 0)
        #expect(serve.error.contains("cannot start:"), "\(serve.error)")
        for problem in problems {
            #expect(serve.error.contains(problem.dropFirst("problem  ".count)), "\(serve.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("data/orders.sqlite")))
    }

    /// SIGTERM while merchants are updating: every update that was answered 200 is stored, none that was not,
    /// and the server exits cleanly; after a restart the pushes for those updates are waiting in the outbox.
    @Test func sigtermDuringTrafficLosesNothing() async throws {
        let folder = try TemporaryDirectory("sigterm")
        let database = ["--database", folder.path("data/orders.sqlite")]
        let serve = try BackgroundCommand(["serve", "--port", "0"] + database, in: folder, name: "serve", directory: repository)
        let banner = try await serve.waitFor("Create a first order")
        let base = "http://127.0.0.1:\(try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1))"
        let key = try String(contentsOfFile: folder.path("data/merchant-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let created = try Command.run("curl", ["-s", "-X", "POST", "\(base)/api/v1/orders", "-H", "Authorization: Bearer \(key)",
                                               "-H", "Content-Type: application/json", "-d", "@Examples/order.json"],
                                      directory: repository.path)
        let order = try #require(try JSONValue.parse(Data(created.output.utf8))["orderDetails"])
        let type = try #require(order["orderTypeIdentifier"]?.stringValue)
        let id = try #require(order["orderIdentifier"]?.stringValue)
        let token = try #require(order["authenticationToken"]?.stringValue)
        for (device, pushToken) in [("device-1", "abcdef01"), ("device-2", "abcdef02")] {
            _ = try Command.run("curl", ["-s", "-X", "POST", "\(base)/v1/devices/\(device)/registrations/\(type)/\(id)",
                                         "-H", "Authorization: AppleOrder \(token)", "-d", #"{"pushToken":"\#(pushToken)"}"#])
        }

        // Four merchants updating as fast as they can; each writes one status code per request.
        let traffic = Process()
        traffic.executableURL = URL(fileURLWithPath: "/bin/bash")
        traffic.arguments = ["-c", """
            for w in 1 2 3 4; do
              (for i in $(seq 400); do
                 curl -s -o /dev/null -w '%{http_code}\\n' --max-time 10 -X PATCH "\(base)/api/v1/orders/\(type)/\(id)" \\
                   -H "Authorization: Bearer \(key)" -H 'Content-Type: application/merge-patch+json' \\
                   -d "{\\"orderNumber\\": \\"w$w-$i\\"}"
               done > "\(folder.path("statuses"))-$w") &
            done
            wait
            """]
        try traffic.run()
        // Let the updates flow, then stop the server in their midst.
        var answered = 0
        for _ in 0..<100 where answered < 40 {
            try await Task.sleep(for: .milliseconds(50))
            answered = (1...4).map { (try? String(contentsOfFile: folder.path("statuses-\($0)"), encoding: .utf8)) ?? "" }
                .joined().split(separator: "\n").count
        }
        #expect(answered >= 40, "traffic was flowing before the signal")
        serve.process.terminate()
        serve.process.waitUntilExit()
        traffic.waitUntilExit()
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0, "\(serve.output)")

        let statuses = (1...4).flatMap { index in
            ((try? String(contentsOfFile: folder.path("statuses-\(index)"), encoding: .utf8)) ?? "").split(separator: "\n")
        }
        let succeeded = statuses.filter { $0 == "200" }.count
        #expect(succeeded >= 40)
        #expect(statuses.allSatisfy { $0 == "200" || $0 == "000" }, "after the signal, requests are refused, never failed: \(Set(statuses))")
        #expect(statuses.contains("000"), "the signal came while updates were still being sent")

        // Restarted, the service holds exactly the answered updates and a push per device for them.
        let again = try BackgroundCommand(["serve", "--port", "0"] + database, in: folder, name: "serve-again", directory: repository)
        let againBanner = try await again.waitFor("Create a first order")
        let againBase = "http://127.0.0.1:\(try #require(againBanner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1))"
        let stored = try Command.run("curl", ["-s", "\(againBase)/api/v1/orders/\(type)/\(id)", "-H", "Authorization: Bearer \(key)"])
        #expect(try JSONValue.parse(Data(stored.output.utf8))["version"]?.intValue == 1 + succeeded, "\(stored.output)")
        let pushes = try Command.run("curl", ["-s", "\(againBase)/api/v1/pushes?status=pending", "-H", "Authorization: Bearer \(key)"])
        #expect(try JSONValue.parse(Data(pushes.output.utf8))["pushes"]?.arrayValue?.count == 2, "\(pushes.output)")
        #expect(again.stop())
    }
}
