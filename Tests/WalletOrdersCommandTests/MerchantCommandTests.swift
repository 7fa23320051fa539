import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `wallet-orders merchants …` beside running servers: what the command line changes in the database, every
/// instance acts on, and the keys it makes are stored nowhere in clear.
@Suite(.timeLimit(.minutes(10))) struct MerchantCommandTests {
    /// Runs `wallet-orders` with `arguments` and `environment`; answers its output, failing the test when it fails.
    static func run(_ arguments: [String], environment: [String: String]) async throws -> String {
        let result = try await Command.run(
            Command.walletOrdersBinary,
            arguments,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }
                .merging(environment) { $1 },
            directory: DevelopmentServer.repository.path
        )
        #expect(result.status == 0, "wallet-orders \(arguments.joined(separator: " ")): \(result.error)\(result.output)")
        return result.output
    }

    /// A copy of the sample template with another logo.
    static func brandedTemplate(in folder: TemporaryDirectory) throws -> (path: String, logo: Data) {
        let path = folder.path("acme-template")
        try FileManager.default.copyItem(atPath: SampleOrder.templateFolder.path, toPath: path)
        let logo = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        try logo.write(to: URL(fileURLWithPath: path).appendingPathComponent("logo.png"))
        return (path, logo)
    }

    /// Tries `attempt` every 50 ms until `done` says its result will do, for up to `seconds` but never less than a
    /// minute (a deadline bounds a test, not the speed of what it waits for: a cold machine is slow); answers its last
    /// result.
    static func eventually<T>(seconds: Double = 60, _ attempt: () async throws -> T, until done: (T) -> Bool) async throws -> T {
        let deadline = Date().addingTimeInterval(max(seconds, 60))
        var result = try await attempt()
        while !done(result), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            result = try await attempt()
        }
        return result
    }

    @Test func aMerchantMadeOnTheCommandLineOrdersThroughTheOtherInstanceAtOnceWithItsOwnLogo() async throws {
        let folder = try TemporaryDirectory("merchants-two")
        var settings = try await makeDevelopmentKeys(in: folder)
        let database = try await TestStore.emptyPostgresDatabase()
        settings["WALLET_ORDERS_DATABASE"] = database
        settings["WALLET_ORDERS_TEMPLATE"] = SampleOrder.templateFolder.path
        settings["WALLET_ORDERS_MERCHANT_KEY"] = TwoInstancesTests.merchantKey
        settings["WALLET_ORDERS_PUBLIC_URL"] = "https://orders.example.com"
        settings["WALLET_ORDERS_APNS_KEY"] = ""
        let environment = settings
        let (first, firstCommand) = try await Instance.start(in: folder, name: "first", environment: environment)
        let (second, secondCommand) = try await Instance.start(in: folder, name: "second", environment: environment)
        defer {
            firstCommand.stop()
            secondCommand.stop()
        }

        let template = try Self.brandedTemplate(in: folder)
        _ = try await Self.run(["merchants", "add", "acme", "--name", "Acme", "--template", template.path], environment: environment)
        let made = try await JSONValue.parse(Data(try Self.run(["merchants", "key", "create", "acme", "--json"], environment: environment).utf8))
        let key = try #require(made["key"]?.stringValue)
        #expect(key.hasPrefix("wo_live_"))

        // The other instance knows the key the moment the command printed it, whether or not PostgreSQL's NOTIFY has
        // reached it yet.
        var body = SampleOrder.json(orderIdentifier: "1001").objectValue ?? [:]
        for field in ["createdAt", "updatedAt", "merchant", "orderTypeIdentifier"] { body.removeValue(forKey: field) }
        let created = await second.send("POST", "/api/v1/orders", json: .object(body), headers: ["Authorization": "Bearer \(key)"])
        #expect(created?.status == 201, "\(String(describing: created))")
        let details = try #require(created?.body["orderDetails"])
        #expect(details["orderIdentifier"] == .string("acme:1001"))

        // The first instance serves its package, with the merchant's logo.
        var request = URLRequest(url: URL(string: "\(first.base)/v1/orders/\(details["orderTypeIdentifier"]?.stringValue ?? "")/acme:1001")!)
        request.setValue("AppleOrder \(details["authenticationToken"]?.stringValue ?? "")", forHTTPHeaderField: "Authorization")
        let (package, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try ZipArchive.read(package).first { $0.path == "logo.png" }?.data == template.logo)

        // The key is stored nowhere in clear: not in the database, not in what the servers printed.
        let dump = try await PostgresCluster.shared.dump(database)
        #expect(dump.contains("merchant_keys"), "the dump holds the keys' table")
        #expect(!dump.contains(key))
        #expect(!dump.contains(String(key.suffix(64))), "nor its secret alone")
        #expect(!firstCommand.output.contains(key) && !secondCommand.output.contains(key))
    }

    @Test func onSQLiteTheCommandLineAddsRevokesAndSuspendsBesideTheRunningServer() async throws {
        let folder = try TemporaryDirectory("merchants-sqlite")
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        defer { server.command.stop() }
        let environment = ["WALLET_ORDERS_DATABASE": folder.path("data/orders.sqlite")]
        let table = try await Self.run(["merchants", "add", "acme", "--name", "Acme", "--max-orders", "5"], environment: environment)
        #expect(table.contains("acme") && table.contains("5 orders"))
        // Stalled parcels: on with hours, shown, refused out of range, off with 0.
        _ = try await Self.run(["merchants", "update", "acme", "--stalled-parcel-after-hours", "72"], environment: environment)
        #expect(try await Self.run(["merchants", "show", "acme"], environment: environment).contains("after 72 hours"))
        let refused = try await Command.run(
            Command.walletOrdersBinary,
            ["merchants", "update", "acme", "--stalled-parcel-after-hours", "721"],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }.merging(environment) { $1 },
            directory: DevelopmentServer.repository.path
        )
        #expect(refused.status != 0 && refused.error.contains("stalledParcelAfterHours"), "\(refused.error)")
        _ = try await Self.run(["merchants", "update", "acme", "--stalled-parcel-after-hours", "0"], environment: environment)
        let shown = try await JSONValue.parse(Data(try Self.run(["merchants", "show", "acme", "--json"], environment: environment).utf8))
        #expect(shown["merchant"]?["slug"] == .string("acme") && shown["merchant"]?["stalledParcelAfterHours"] == nil)
        let created = try await Self.run(["merchants", "key", "create", "acme"], environment: environment)
        let key = try #require(created.split(separator: "\n").first.map(String.init))
        func status() async throws -> String {
            try await server.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(server.base)/api/v1/orders", "-H", "Authorization: Bearer \(key)"])
        }
        // The key works the moment the command printed it (before: 401 for about a second, until the server's next
        // look at the merchants, each 401 counted toward the address's failure limit).
        #expect(try await status() == "200")

        _ = try await Self.run(["merchants", "suspend", "acme"], environment: environment)
        #expect(
            try await Self.eventually {
                try await status()
            } until: {
                $0 == "403"
            } == "403"
        )
        _ = try await Self.run(["merchants", "resume", "acme"], environment: environment)
        #expect(
            try await Self.eventually {
                try await status()
            } until: {
                $0 == "200"
            } == "200"
        )

        let listed = try await JSONValue.parse(Data(try Self.run(["merchants", "key", "list", "acme", "--json"], environment: environment).utf8))
        let keyID = try #require(listed["keys"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(key.hasPrefix("wo_live_\(keyID)_"))
        _ = try await Self.run(["merchants", "key", "revoke", "acme", keyID], environment: environment)
        #expect(
            try await Self.eventually {
                try await status()
            } until: {
                $0 == "401"
            } == "401"
        )

        // Stored nowhere in clear: not in the database files (WAL included), not in what the server printed.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path("data")).filter { $0.hasPrefix("orders.sqlite") }
        #expect(files.contains("orders.sqlite"))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path("data/\(file)")))
            #expect(bytes.range(of: Data(key.utf8)) == nil, "\(file) holds the key")
            #expect(bytes.range(of: Data(key.suffix(64).utf8)) == nil, "\(file) holds the key's secret")
        }
        #expect(!server.command.output.contains(key))
    }
}
