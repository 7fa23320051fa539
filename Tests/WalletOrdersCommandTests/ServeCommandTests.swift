import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Starts `wallet-orders serve` (and `apns-sandbox`) as a user would, and uses them with curl.
@Suite(.timeLimit(.minutes(10))) struct ServeCommandTests {
    @Test func serveWithNoConfigurationMakesKeysAndAcceptsTheREADMECurl() async throws {
        let folder = try TemporaryDirectory("serve")
        let server = try await DevelopmentServer.start(in: folder)
        #expect(server.banner.contains(server.merchantKey), "the new development key is printed once")
        #expect(FileManager.default.fileExists(atPath: folder.path("data/dev-keys/root-ca.pem")))

        let created = try await server.curl([
            "-w", "\n%{http_code}", "-X", "POST", "\(server.base)/api/v1/orders", "-H", "Authorization: Bearer \(server.merchantKey)",
            "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ])
        let lines = created.split(separator: "\n")
        #expect(lines.last == "201", "\(created)")
        let details = try JSONValue.parse(Data(lines.first!.utf8))["orderDetails"]
        // With --port 0 and no publicURL, the URL orders carry names the configured address, not the bound port.
        #expect(details?["webServiceURL"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
        #expect(details?["authenticationToken"]?.stringValue?.count == 64)
        let health = try await JSONValue.parse(Data(server.curl(["\(server.base)/healthz"]).utf8))
        #expect(health["database"] == .string("ok") && health["disk"] == .string("ok"), "\(health)")
        #expect((health["diskFreeBytes"]?.intValue ?? 0) > 0)
        #expect(await server.command.stopped())
    }

    /// Development takes the template `WALLET_ORDERS_TEMPLATE` names, and says so, instead of the sample.
    @Test func developmentUsesTheTemplateItIsGiven() async throws {
        let folder = try TemporaryDirectory("serve-template")
        let template = folder.url.appendingPathComponent("shop")
        try FileManager.default.copyItem(at: DevelopmentServer.repository.appendingPathComponent("OrderTemplates/sample"), to: template)
        let defaults = template.appendingPathComponent("template.json")
        let text = try String(contentsOf: defaults, encoding: .utf8)
        try text.replacingOccurrences(of: "https://shop.example.com\"", with: "https://other.example.com\"")
            .write(to: defaults, atomically: true, encoding: .utf8)
        let server = try await DevelopmentServer.start(in: folder, environment: ["WALLET_ORDERS_TEMPLATE": template.path])
        #expect(server.banner.contains("Template: \(template.path)."), "\(server.banner)")
        let created = try await server.curl([
            "-X", "POST", "\(server.base)/api/v1/orders", "-H", "Authorization: Bearer \(server.merchantKey)",
            "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ])
        #expect(try JSONValue.parse(Data(created.utf8))["order"]?["merchant"]?["url"] == .string("https://other.example.com"), "\(created)")
        #expect(await server.command.stopped())
    }

    /// In development the playground is open and its page holds a merchant key: `serve` answers only to this
    /// machine's names, so a page under another name rebound to 127.0.0.1 cannot read it.
    @Test func developmentServeAnswersOnlyToLoopbackNames() async throws {
        let folder = try TemporaryDirectory("loopback")
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        let port = try #require(server.base.split(separator: ":").last)
        let status = { (host: String) in
            try await server.curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "\(server.base)/playground"])
        }
        await #expect(try status("rebind.example.com:\(port)") == "421")
        await #expect(try status("localhost:\(port)") == "200")
        await #expect(try status("127.0.0.1:\(port)") == "200")
        #expect(await server.command.stopped())
    }

    /// A graceful stop with nothing in flight hands back nothing and says nothing went wrong.
    @Test func sigtermWithNothingInFlightLogsNoError() async throws {
        let folder = try TemporaryDirectory("quiet-stop")
        // With the local APNs in the process, so that a push worker runs and stops with the server.
        let server = try await DevelopmentServer.start(in: folder)
        await #expect(try JSONValue.parse(Data(server.curl(["\(server.base)/healthz"]).utf8))["database"] == .string("ok"))
        let serve = server.command
        serve.process.terminate()
        serve.process.waitUntilExit()
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0, "\(serve.output)")
        #expect(!serve.output.contains("cannot hand back pushes"), "\(serve.output)")
    }

    /// The README's push tour: `apns-sandbox` on the development keys, `serve` pointed at it with two variables;
    /// an update reaches every registered device.
    @Test func anUpdateReachesTheAPNSSandboxThroughServe() async throws {
        let folder = try TemporaryDirectory("sandbox")
        let keys = folder.path("data/dev-keys")
        _ = try await Command.run(Command.walletOrdersBinary, ["keys", "dev", "--out", keys])
        let sandbox = try BackgroundCommand(["apns-sandbox", "--port", "0", "--keys", keys], in: folder, name: "apns")
        let sandboxBanner = try await sandbox.waitFor("WALLET_ORDERS_APNS_CA")
        let apnsURL = try #require(sandboxBanner.firstMatch(of: /WALLET_ORDERS_APNS_ENVIRONMENT=(\S+)/)?.1)

        let server = try await DevelopmentServer.start(
            in: folder,
            environment: [
                "WALLET_ORDERS_APNS_ENVIRONMENT": String(apnsURL), "WALLET_ORDERS_APNS_CA": "\(keys)/local-apns-ca.pem",
            ]
        )
        #expect(server.banner.contains("Pushes go to the local APNs at \(apnsURL)"), "\(server.banner)")
        let order = try await server.createOrder()
        try await server.register(order, device: "device-1", pushToken: "a1b2c3")
        try await server.register(order, device: "device-2", pushToken: "d4e5f6")
        await #expect(try server.patch(order, #"{"status":"completed"}"#).hasSuffix("200"))

        let output = try await sandbox.waitFor("token=d4e5f6")
        let pushes = output.split(separator: "\n").filter { $0.hasPrefix("push ") }
        #expect(pushes.count == 2, "\(output)")
        for push in pushes {
            #expect(push.hasPrefix("push 200 topic=\(order.type) "), "\(push)")
            #expect(push.contains("type=background priority=5 body={}"), "\(push)")
        }
        #expect(await server.command.stopped())
        #expect(await sandbox.stopped())
    }

    /// `doctor` prints serve's start-up checks; `serve` refuses to start on the same problems, one line each.
    @Test func doctorAndServeReportEveryProblemWithTheConfiguration() async throws {
        let folder = try TemporaryDirectory("doctor")
        let keys = folder.path("keys")
        var environment = try await makeDevelopmentKeys(in: folder)
        environment["WALLET_ORDERS_MERCHANT_KEY"] = "merchant-key-0123456789"
        environment["WALLET_ORDERS_PUBLIC_URL"] = "https://orders.example.com"
        let database = ["--database", folder.path("data/orders.sqlite")]

        let healthy = try await Command.run(Command.walletOrdersBinary, ["doctor"] + database, environment: environment)
        #expect(healthy.status == 0, "\(healthy.output)\(healthy.error)")
        #expect(healthy.output.contains("ok       order type order.com.example.dev: the signing certificate, its key and the WWDR certificate match"))

        environment["WALLET_ORDERS_WWDR_CERT"] = "\(keys)/root-ca.pem"
        environment["WALLET_ORDERS_APNS_KEY"] = "\(keys)/order-type.key"
        let broken = try await Command.run(Command.walletOrdersBinary, ["doctor"] + database, environment: environment)
        #expect(broken.status == 1)
        let problems = broken.output.split(separator: "\n").filter { $0.hasPrefix("problem") }
        #expect(problems.count == 2, "\(broken.output)")
        #expect(problems.contains { $0.contains("was not issued by the WWDR certificate in \(keys)/root-ca.pem") })
        #expect(problems.contains { $0.contains("\(keys)/order-type.key is not a P-256 key") })

        let serve = try await Command.run(Command.walletOrdersBinary, ["serve", "--port", "0"] + database, environment: environment)
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
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        let serve = server.command
        let (base, key) = (server.base, server.merchantKey)
        let order = try await server.createOrder()
        let (type, id) = (order.type, order.id)
        try await server.register(order, device: "device-1", pushToken: "abcdef01")
        try await server.register(order, device: "device-2", pushToken: "abcdef02")

        // Four merchants updating as fast as they can; each writes one status code per request.
        let traffic = Process()
        traffic.executableURL = URL(fileURLWithPath: "/bin/bash")
        traffic.arguments = [
            "-c",
            """
            for w in 1 2 3 4; do
              (for i in $(seq 400); do
                 curl -s -o /dev/null -w '%{http_code}\\n' --max-time 10 -X PATCH "\(base)/api/v1/orders/\(type)/\(id)" \\
                   -H "Authorization: Bearer \(key)" -H 'Content-Type: application/merge-patch+json' \\
                   -d "{\\"orderNumber\\": \\"w$w-$i\\"}"
               done > "\(folder.path("statuses"))-$w") &
            done
            wait
            """,
        ]
        try traffic.run()
        // Let the updates flow, then stop the server in their midst.
        var answered = 0
        for _ in 0..<1_200 where answered < 40 {
            try await Task.sleep(for: .milliseconds(50))
            answered =
                (1...4).map { (try? String(contentsOfFile: folder.path("statuses-\($0)"), encoding: .utf8)) ?? "" }
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
        let again = try await DevelopmentServer.start(in: folder, name: "serve-again", arguments: ["--no-local-apns"])
        let stored = try await Command.run("curl", ["-s", "\(again.base)/api/v1/orders/\(type)/\(id)", "-H", "Authorization: Bearer \(key)"])
        #expect(try JSONValue.parse(Data(stored.output.utf8))["version"]?.intValue == 1 + succeeded, "\(stored.output)")
        let pushes = try await Command.run("curl", ["-s", "\(again.base)/api/v1/pushes?status=pending", "-H", "Authorization: Bearer \(key)"])
        #expect(try JSONValue.parse(Data(pushes.output.utf8))["pushes"]?.arrayValue?.count == 2, "\(pushes.output)")
        #expect(await again.command.stopped())
    }
}
