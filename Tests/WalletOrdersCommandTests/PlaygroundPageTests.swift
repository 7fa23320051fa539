import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// `/playground` on a running `serve`: the whole cycle in real Chromium in development, and the page behind the
/// admin key when an order type is configured.
@Suite(.timeLimit(.minutes(10))) struct PlaygroundPageTests {
    /// Where the Chromium run keeps its screenshot: under the build folder, so it outlives the test.
    static let output = DevelopmentServer.repository.appendingPathComponent(".build/test-output/playground").path

    @Test func chromiumTypesABadStatusFixesItPaysAndFollowsAnUpdateToThePreviewWithTheCheckoutCodeForIt() async throws {
        let folder = try TemporaryDirectory("playground")
        let server = try await DevelopmentServer.start(in: folder)
        #expect(server.banner.contains("Playground: http://127.0.0.1:"), "\(server.banner)")
        #expect(server.banner.contains("Pushes go to the local APNs at https://127.0.0.1:"), "\(server.banner)")

        let script = DevelopmentServer.repository.appendingPathComponent("Tests/playground/playground.sh").path
        let run = try await Command.run(script, [server.base, Self.output])
        print(run.output)
        #expect(run.status == 0, "\(run.output)\n\(run.error)")
        #expect(run.output.contains("problem shown: status"), "\(run.output)")
        let screenshot = try #require(run.output.firstMatch(of: /screenshot: (\S+)/)?.1, "\(run.output)")
        let png = try Data(contentsOf: URL(fileURLWithPath: String(screenshot)))
        #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]), "a PNG screenshot is kept at \(screenshot)")

        // The Source view's last code, as the page showed it (Chromium and node checked the JavaScript): the Swift
        // (PassKit's, and the app's part of Stripe's) parses as Swift, and the curl command as a shell command.
        let source = try #require(run.output.firstMatch(of: /source: (\S+)/)?.1, "\(run.output)")
        for file in ["passkit.swift", "stripe-app.swift"] {
            let swift = try await Command.run("swiftc", ["-parse", "\(source)/\(file)"])
            #expect(swift.status == 0, "\(file): \(swift.error)")
        }
        let shell = try await Command.run("sh", ["-n", "\(source)/curl.sh"])
        #expect(shell.status == 0, "\(shell.error)")

        // The order Chromium downloaded through the link made before the update: signed, checked by `verify` and
        // by `openssl cms -verify`, and of the updated version.
        let downloaded = try #require(run.output.firstMatch(of: /downloaded: (\S+)/)?.1, "\(run.output)")
        let root = folder.path("data/dev-keys/root-ca.pem")
        let verified = try await Command.run(
            Command.walletOrdersBinary,
            ["verify", String(downloaded), "--ca", root, "--allow-http-web-service"]
        )
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        let orderJSON = try await Command.run("unzip", ["-p", String(downloaded), "order.json"]).output
        #expect(orderJSON.contains("EP123456789FR"), "the link serves the version after the update: \(orderJSON)")
        let unpacked = try TemporaryDirectory("downloaded")
        _ = try await Command.run("unzip", ["-q", String(downloaded), "-d", unpacked.url.path])
        let cms = try await Command.run(
            "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", unpacked.path("signature"), "-content",
                unpacked.path("manifest.json"), "-CAfile", root, "-purpose", "any", "-out", "/dev/null",
            ]
        )
        #expect(cms.status == 0, "\(cms.error)")

        // What the page did is in the service: the order at version 2, one device registered, its push delivered.
        let orders = try await JSONValue.parse(
            Data(
                server.curl([
                    "\(server.base)/api/v1/orders",
                    "-H", "Authorization: Bearer \(server.merchantKey)",
                ]).utf8
            )
        )
        let order = try #require(orders["orders"]?.arrayValue?.first, "\(orders)")
        #expect(order["version"]?.intValue == 2 && order["status"]?.stringValue == "open", "\(order)")
        #expect(order["registrations"]?.intValue == 1, "\(order)")
        let pushes = try await JSONValue.parse(
            Data(
                server.curl([
                    "\(server.base)/api/v1/pushes?status=delivered",
                    "-H", "Authorization: Bearer \(server.merchantKey)",
                ]).utf8
            )
        )
        #expect(pushes["pushes"]?.arrayValue?.count == 1, "\(pushes)")
        #expect(await server.command.stopped())
    }

    @Test func validateAnswersEachProblemAtItsPathAndStoresNothing() async throws {
        let folder = try TemporaryDirectory("validate")
        let server = try await DevelopmentServer.start(in: folder)
        func validate(_ body: String, key: String? = nil) async throws -> (status: String, json: JSONValue?) {
            let output = try await server.curl([
                "-w", "\n%{http_code}", "-X", "POST", "\(server.base)/api/v1/orders/validate",
                "-H", "Authorization: Bearer \(key ?? server.merchantKey)",
                "-H", "Content-Type: application/json", "-d", body,
            ])
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), try? JSONValue.parse(Data(lines.dropLast().joined(separator: "\n").utf8)))
        }
        let example = try String(
            contentsOfFile: DevelopmentServer.repository.appendingPathComponent("Examples/order.json").path,
            encoding: .utf8
        )
        let good = try await validate(example)
        #expect(good.status == "200" && good.json?["valid"] == .bool(true), "\(String(describing: good.json))")
        #expect(good.json?["problems"]?.arrayValue?.isEmpty == true)

        let bad = try await validate(
            example.replacingOccurrences(of: #""status": "processing""#, with: #""status": "lost""#)
                .replacingOccurrences(of: #""orderNumber": "1001","#, with: #""orderNumber": "1001", "createdAt": "2020-01-01T00:00:00Z","#)
        )
        #expect(bad.status == "200" && bad.json?["valid"] == .bool(false), "\(String(describing: bad.json))")
        let paths = bad.json?["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(paths.contains("createdAt"), "\(paths)")

        let status = try await validate(example.replacingOccurrences(of: #""status": "processing""#, with: #""status": "lost""#))
        let statusPaths = status.json?["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(statusPaths == ["fulfillments[0].status"], "\(String(describing: status.json))")

        await #expect(try validate("{not json").status == "400")
        await #expect(try validate(example, key: "not-the-merchant-key-0123").status == "401")
        let orders = try await JSONValue.parse(
            Data(
                server.curl([
                    "\(server.base)/api/v1/orders",
                    "-H", "Authorization: Bearer \(server.merchantKey)",
                ]).utf8
            )
        )
        #expect(orders["orders"]?.arrayValue?.isEmpty == true, "validating stores nothing: \(orders)")
        #expect(await server.command.stopped())
    }

    @Test func withAnOrderTypeConfiguredThePageIsOffUnlessAskedForAndThenActsAsAMerchantOfItsOwn() async throws {
        let folder = try TemporaryDirectory("playground-production")
        var environment = try await makeDevelopmentKeys(in: folder)
        let merchantKey = "merchant-key-for-production-0123456789"
        let adminKey = "admin-key-for-the-playground-0123456789"
        environment["WALLET_ORDERS_MERCHANT_KEY"] = merchantKey
        environment["WALLET_ORDERS_ADMIN_KEY"] = adminKey
        environment["WALLET_ORDERS_TEMPLATE"] = DevelopmentServer.repository.appendingPathComponent("OrderTemplates/sample").path
        func serve(_ environment: [String: String]) throws -> BackgroundCommand {
            try BackgroundCommand(
                ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")],
                in: folder,
                name: "serve",
                environment: environment
            )
        }
        func curl(_ arguments: [String]) async throws -> String { try await Command.run("curl", ["-s"] + arguments).output }
        let example = DevelopmentServer.repository.appendingPathComponent("Examples/order.json").path

        // Off by default: the admin key opens /admin, never a page that writes.
        let closed = try serve(environment)
        let closedBanner = try await closed.waitFor("serving on")
        let closedPort = try #require(closedBanner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1)
        #expect(!closedBanner.contains("Playground"), "\(closedBanner)")
        let off = try await curl(["-w", "\n%{http_code}", "-u", "admin:\(adminKey)", "http://127.0.0.1:\(closedPort)/playground"])
        #expect(off.hasSuffix("404") && off.contains("WALLET_ORDERS_PLAYGROUND=true"), "\(off)")
        // The shop's own order, which the playground must never see.
        let shop = try await curl([
            "-X", "POST", "http://127.0.0.1:\(closedPort)/api/v1/orders", "-H", "Authorization: Bearer \(merchantKey)",
            "-H", "Content-Type: application/json", "-d", "@\(example)",
        ])
        let shopDetails = try JSONValue.parse(Data(shop.utf8))["orderDetails"]
        let shopType = try #require(shopDetails?["orderTypeIdentifier"]?.stringValue, "\(shop)")
        let shopID = try #require(shopDetails?["orderIdentifier"]?.stringValue, "\(shop)")
        #expect(await closed.stopped())

        // Without the admin key to close it, asking for it stops serve.
        var unguarded = environment
        unguarded["WALLET_ORDERS_PLAYGROUND"] = "true"
        unguarded.removeValue(forKey: "WALLET_ORDERS_ADMIN_KEY")
        let refused = try await Command.run(
            Command.walletOrdersBinary,
            ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")],
            environment: unguarded,
            directory: folder.url.path
        )
        #expect(refused.status != 0 && refused.error.contains("needs adminKey"), "\(refused.output)\(refused.error)")

        environment["WALLET_ORDERS_PLAYGROUND"] = "true"
        let open = try serve(environment)
        defer { open.stop() }
        let banner = try await open.waitFor("/playground")
        let port = try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1, "\(banner)")
        let base = "http://127.0.0.1:\(port)"
        #expect(banner.contains("Playground: \(base)/playground (behind the admin key)"), "\(banner)")

        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/playground"]) == "401")
        let page = try await curl(["-u", "admin:\(adminKey)", "\(base)/playground"])
        #expect(page.contains(#"data-testid="order-editor""#), "\(page)")
        #expect(!page.contains(merchantKey) && !page.contains(adminKey))
        #expect(page.contains(#"<meta name="playground-devices" content="off">"#))
        let key = try #require(page.firstMatch(of: /<meta name="playground-key" content="([0-9a-f]{64})">/)?.1)
        let bearer = "Authorization: Bearer \(key)"

        // The page's key writes as merchant `playground`: its orders are Wallet's `playground:…`, and the shop's
        // order is as unknown to it as an order that does not exist.
        let created = try await curl([
            "-w", "\n%{http_code}", "-X", "POST", "\(base)/api/v1/orders", "-H", bearer, "-H", "Content-Type: application/json",
            "-d", "@\(example)",
        ])
        #expect(created.hasSuffix("201"), "\(created)")
        let createdID = try JSONValue.parse(Data(created.split(separator: "\n").dropLast().joined(separator: "\n").utf8))[
            "orderDetails"
        ]?["orderIdentifier"]?.stringValue
        #expect(createdID?.hasPrefix("playground:") == true, "\(created)")
        let shopPath = "\(base)/api/v1/orders/\(shopType)/\(shopID)"
        let unknownPath = "\(base)/api/v1/orders/\(shopType)/no-such-order"
        for suffix in ["", "/package", "/registrations"] {
            let shopAnswer = try await curl(["-w", "\n%{http_code}", shopPath + suffix, "-H", bearer])
            let unknownAnswer = try await curl(["-w", "\n%{http_code}", unknownPath + suffix, "-H", bearer])
            #expect(shopAnswer.hasSuffix("404") && shopAnswer == unknownAnswer, "\(suffix): \(shopAnswer) / \(unknownAnswer)")
        }
        let patch = try await curl([
            "-w", "\n%{http_code}", "-X", "PATCH", shopPath, "-H", bearer, "-H", "Content-Type: application/json",
            "-d", #"{"status": "cancelled"}"#,
        ])
        #expect(patch.hasSuffix("404"), "\(patch)")
        let listed = try await curl(["\(base)/api/v1/orders", "-H", bearer])
        #expect(!listed.contains(shopID) || shopID.hasPrefix("playground:"), "\(listed)")
        let shopOrder = try await curl([shopPath, "-H", "Authorization: Bearer \(merchantKey)"])
        #expect(try JSONValue.parse(Data(shopOrder.utf8))["order"]?["status"]?.stringValue != "cancelled", "\(shopOrder)")

        // The playground has no simulated device in production.
        let device = try await curl([
            "-w", "\n%{http_code}", "-X", "POST", "\(base)/playground/devices", "-H", bearer,
            "-d", #"{"orderTypeIdentifier": "a", "orderIdentifier": "b", "webServiceURL": "c", "authenticationToken": "d"}"#,
        ])
        #expect(device.hasSuffix("409"), "\(device)")
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(base)/playground/devices", "-d", "{}"]) == "401")
        #expect(!open.output.contains(key), "the page's key is never logged")
    }
}
