import Foundation
import Testing
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersTesting

/// `wallet-orders partners …` beside a running server, and a partner's tracking event reaching a simulated Wallet
/// device through the local APNs.
@Suite(.timeLimit(.minutes(10))) struct PartnerCommandTests {
    @Test func aPartnerMadeOnTheCommandLinePostsAnEventThatReachesTheDeviceAsAPushAndANewVersion() async throws {
        let cycle = try await WalletCycle.start(.sqlite)
        defer { cycle.stop() }
        let apns = try #require(cycle.apns)
        let details = try await OrderDetails(json: cycle.createOrder())
        let device = try SimulatedDevice(trustedRootsPEM: cycle.rootPEM, allowsHTTPWebService: true, client: patientClient())
        device.connect(to: apns)
        defer { device.stop() }
        #expect(try await device.add(details).isRegistered)

        // The shop ships and names the parcel; the device follows.
        let patch =
            #"{"fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1", "#
            + #""status": "shipped", "carrier": "Example Post", "trackingNumber": "EX-1001"}]}"#
        let shipped = try await steps(
            of: device,
            until: { $0.kind == .verified || $0.kind == .refused },
            after: {
                let queued = try await cycle.patch(details, patch)
                #expect(queued == 1)
            }
        )
        #expect(shipped.last?.kind == .verified, "\(shipped.map(\.description))")

        let listed = try await cycle.command(["partners", "add", "parcelco", "--merchant", "default"])
        #expect(listed.contains("parcelco") && listed.contains("default"), "\(listed)")
        let made = try await JSONValue.parse(Data(try cycle.command(["partners", "key", "create", "parcelco", "--json"]).utf8))
        let key = try #require(made["key"]?.stringValue)
        #expect(key.hasPrefix("wo_partner_"))

        // The carrier's word, through the partner's key: a push, a listing, a fetch of the partner's version.
        let body =
            #"{"events": [{"id": "ev-1", "trackingNumber": "EX-1001", "status": "out_for_delivery", "#
            + #""occurredAt": "2026-11-25T08:00:00Z", "description": "With the driver"}]}"#
        let delivered = try await steps(
            of: device,
            until: { $0.kind == .verified || $0.kind == .refused },
            after: {
                // The server reads partners again within a second or so of the command line adding one.
                let answer = try await MerchantCommandTests.eventually(seconds: 5) {
                    try await cycle.merchant.curl([
                        "-X", "POST", "\(cycle.base)/api/v1/tracking-events", "-H", "Authorization: Bearer \(key)",
                        "-H", "Content-Type: application/json", "-d", body,
                    ])
                } until: {
                    $0.contains("\"applied\"")
                }
                #expect(answer.contains("\"applied\""), "\(answer)")
            }
        )
        #expect(delivered.map(\.kind).suffix(3) == [.list, .fetch, .verified], "\(delivered.map(\.description))")
        let order = try #require(await device.order(details.orderTypeIdentifier, details.orderIdentifier))
        let fulfillment = order.order["fulfillments"]?.arrayValue?.first
        #expect(fulfillment?["status"] == .string("outForDelivery"))
        #expect(fulfillment?["statusDescription"] == .string("With the driver"))

        // The admin view says who made each version; the partner's key stops working once revoked.
        let story = try await cycle.command(["admin", "order", details.orderTypeIdentifier, details.orderIdentifier])
        #expect(story.contains("partner:parcelco") && story.contains("merchant:default"), "\(story)")
        let keyID = try #require(made["id"]?.stringValue)
        _ = try await cycle.command(["partners", "key", "revoke", "parcelco", keyID])
        let refused = try await MerchantCommandTests.eventually(seconds: 5) {
            try await cycle.merchant.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(cycle.base)/api/v1/tracking-events",
                "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "-d", body,
            ])
        } until: {
            $0 == "401"
        }
        #expect(refused == "401")
        #expect(!cycle.server.output.contains(key), "the key is never printed by the server")
    }

    @Test func onSQLiteTheCommandLineUnlinksGivesANewSecretAndRemovesAPartnerBesideTheRunningServer() async throws {
        let folder = try TemporaryDirectory("partners-sqlite")
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        defer { server.command.stop() }
        let environment = ["WALLET_ORDERS_DATABASE": folder.path("data/orders.sqlite")]
        func run(_ arguments: [String]) async throws -> String { try await MerchantCommandTests.run(arguments, environment: environment) }
        for slug in ["acme", "globex"] { _ = try await run(["merchants", "add", slug, "--name", slug.capitalized]) }
        let oldSecret = folder.path("old-secret.txt")
        let newSecret = folder.path("new-secret.txt")
        try "the-old-aftership-secret-012345\n".write(toFile: oldSecret, atomically: true, encoding: .utf8)
        try "the-new-aftership-secret-678901\n".write(toFile: newSecret, atomically: true, encoding: .utf8)
        _ = try await run([
            "partners", "add", "parcelco", "--merchant", "acme", "--merchant", "globex", "--provider", "aftership",
            "--secret-file", oldSecret,
        ])
        let made = try JSONValue.parse(Data(try await run(["partners", "key", "create", "parcelco", "--json"]).utf8))
        let key = try #require(made["key"]?.stringValue)

        let unlinked = try JSONValue.parse(Data(try await run(["partners", "unlink", "parcelco", "--merchant", "globex", "--json"]).utf8))
        #expect(unlinked["partners"]?.arrayValue?.first?["merchantIDs"]?.arrayValue?.count == 1, "\(unlinked)")
        let last = try await Command.run(
            Command.walletOrdersBinary,
            ["partners", "unlink", "parcelco", "--merchant", "acme"],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }.merging(environment) { $1 },
            directory: DevelopmentServer.repository.path
        )
        #expect(last.status != 0 && (last.error + last.output).contains("remove the partner instead"), "\(last.error)\(last.output)")

        // The provider's webhook, signed with one secret file or the other, as AfterShip signs.
        let fixture = DevelopmentServer.repository.appendingPathComponent("Tests/Fixtures/tracking/aftership-tracking-update.json").path
        func hook(signedWith secretFile: String) async throws -> String {
            let secret = try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let hex = Array(secret.utf8).map { String(format: "%02x", $0) }.joined()
            let signed = try await Command.run(
                "/bin/sh",
                ["-c", "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(hex) -binary < \"$1\" | openssl base64 -A", "sh", fixture]
            )
            return try await server.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(server.base)/hooks/aftership/parcelco",
                "-H", "Content-Type: application/json", "-H", "aftership-hmac-sha256: \(signed.output)", "--data-binary", "@\(fixture)",
            ])
        }
        // A partner the command line added works at once: the hook looks at the store again when it does not know
        // the partner yet (the server reads partners again within a second or so anyway).
        #expect(try await hook(signedWith: oldSecret) == "200", "the partner's hook works the moment the command returns")
        let changed = try await run(["partners", "secret", "parcelco", "--secret-file", newSecret])
        #expect(changed.contains("aftership") && !changed.contains("the-new-aftership-secret"), "\(changed)")
        #expect(try await hook(signedWith: newSecret) == "200", "the new secret works the moment the command returns")
        let refused = try await eventually { try await hook(signedWith: oldSecret) == "401" }
        #expect(refused, "the old secret is refused within a second or so")

        #expect(try await run(["partners", "remove", "parcelco"]).contains("removed partner parcelco"))
        let body = #"{"events": [{"id": "ev-1", "trackingNumber": "EX-1", "status": "in_transit", "occurredAt": "2026-11-20T08:00:00Z"}]}"#
        let gone = try await eventually {
            try await server.curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(server.base)/api/v1/tracking-events",
                "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "-d", body,
            ]) == "401"
        }
        #expect(gone, "the removed partner's key is refused")
        let listed = try JSONValue.parse(Data(try await run(["partners", "list", "--json"]).utf8))
        #expect(listed["partners"]?.arrayValue?.isEmpty == true, "\(listed)")
    }
}
