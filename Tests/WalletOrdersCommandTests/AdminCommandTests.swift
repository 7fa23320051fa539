import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// `wallet-orders admin` against the database a running `serve` writes.
@Suite(.timeLimit(.minutes(10))) struct AdminCommandTests {
    @Test func adminReadsAndFixesWhatTheRunningServerWrote() async throws {
        let folder = try TemporaryDirectory("admin")
        let database = ["--database", folder.path("data/orders.sqlite")]
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        let base = server.base
        let created = try await server.createOrder()
        let (type, id, token) = created
        try await server.register(created, device: "device-1", pushToken: "aa01")
        try await server.register(created, device: "device-2", pushToken: "bb02")
        _ = try await server.patch(created, #"{"status":"completed"}"#)
        _ = try await server.curl(["-X", "POST", "\(base)/v1/log", "-d", #"{"logs":["Wallet could not reach the service","all fine"]}"#])
        let curl = server.curl

        func admin(_ arguments: [String]) async throws -> (status: Int32, output: String, json: JSONValue?) {
            let result = try await Command.run(Command.walletOrdersBinary, ["admin"] + arguments + database)
            return (result.status, result.output + result.error, try? JSONValue.parse(Data(result.output.utf8)))
        }

        let orders = try await admin(["orders", "--json"])
        let listed = try #require(orders.json?["orders"]?.arrayValue, "\(orders.output)")
        #expect(listed.count == 1)
        #expect(listed.first?["version"]?.intValue == 2 && listed.first?["registrations"]?.intValue == 2)
        await #expect(try admin(["orders", "--status", "open", "--json"]).json?["orders"]?.arrayValue?.isEmpty == true)
        let table = try await admin(["orders"]).output
        #expect(table.hasPrefix("MERCHANT"), "\(table)")
        #expect(table.contains(id) && table.contains("completed"), "\(table)")
        // The console's search: by device, push token start, order number, merchant slug; and not by a stranger.
        for search in ["device-2", "1001", "default"] {
            let found = try await admin(["orders", "--search", search, "--json"]).json?["orders"]?.arrayValue
            #expect(found?.compactMap { $0["orderIdentifier"]?.stringValue } == [id], "\(search)")
        }
        await #expect(try admin(["orders", "--search", "someone-else", "--json"]).json?["orders"]?.arrayValue?.isEmpty == true)
        await #expect(try admin(["orders", "--merchant", "nobody"]).status != 0)
        await #expect(try admin(["orders", "--created-before", "1d", "--json"]).json?["orders"]?.arrayValue?.isEmpty == true)

        let order = try await admin(["order", type, id, "--json"])
        #expect(order.json?["versions"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == ["open", "completed"])
        #expect(order.json?["registrations"]?.arrayValue?.count == 2)
        #expect(order.json?["pushes"]?.arrayValue?.count == 2)
        #expect(!order.output.contains(token), "the authentication token is a secret")
        await #expect(try admin(["order", type, "missing"]).status != 0)

        await #expect(try admin(["registrations", "--device", "device-1", "--json"]).json?["registrations"]?.arrayValue?.count == 1)
        let logs = try await admin(["logs", "--contains", "COULD NOT", "--since", "1h", "--json"]).json?["logs"]?.arrayValue
        #expect(logs?.compactMap { $0["message"]?.stringValue } == ["Wallet could not reach the service"])
        await #expect(try admin(["pushes", "--status", "pending", "--json"]).json?["pushes"]?.arrayValue?.count == 2)
        let stats = try await admin(["stats", "--json"]).json
        #expect(stats?["outboxDepth"]?.intValue == 2 && stats?["orders"]?.intValue == 1 && stats?["devices"]?.intValue == 2)
        await #expect(try admin(["stats"]).output.contains("outbox depth"))

        // Actions: re-send (the pending pushes already cover both devices), prune, rebuild after a renewal.
        await #expect(try admin(["resend", type, id]).output == "queued a push for 2 devices; the running server sends it\n")
        await #expect(
            try admin(["prune", "--logs-older-than", "1", "--failed-registrations", "--json"]).json
                == .object(["registrationsRemoved": .int(0), "logsRemoved": .int(0)])
        )
        await #expect(try admin(["prune"]).status != 0, "prune needs to be told what to prune")
        let before = try await curl([
            "-D", "-", "-o", folder.path("before.order"), "\(base)/v1/orders/\(type)/\(id)",
            "-H", "Authorization: AppleOrder \(token)",
        ])
        #expect(before.contains("200"))
        let rebuild = try await Command.run(
            Command.walletOrdersBinary,
            ["admin", "rebuild-packages"] + database,
            directory: DevelopmentServer.repository.path
        )
        #expect(rebuild.output == "rebuilt 1 package (orders of unconfigured types are left as they are)\n", "\(rebuild.error)")
        _ = try await curl(["-o", folder.path("after.order"), "\(base)/v1/orders/\(type)/\(id)", "-H", "Authorization: AppleOrder \(token)"])
        let verified = try await Command.run(
            Command.walletOrdersBinary,
            [
                "verify", folder.path("after.order"), "--ca", folder.path("data/dev-keys/root-ca.pem"), "--allow-http-web-service",
            ]
        )
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        #expect(await server.command.stopped())
    }

    @Test func adminTablesShowTheControlCharactersOfDeviceLogsAndOrderNumbersInsteadOfObeyingThem() async throws {
        let folder = try TemporaryDirectory("admin-controls")
        let database = ["--database", folder.path("data/orders.sqlite")]
        let server = try await DevelopmentServer.start(in: folder, arguments: ["--no-local-apns"])
        defer { server.command.stop() }
        let created = try await server.createOrder()
        // An OSC 52 clipboard write, a colour, a screen clear, a carriage return and a forged line: a terminal obeys
        // each of them unless they are shown as text.
        let patched = try await server.patch(created, #"{"orderNumber":"\u001b]52;c;ZXZpbA==\u0007N-1\u001b[2J"}"#)
        #expect(patched.hasSuffix("200"), "\(patched)")
        _ = try await server.curl([
            "-X", "POST", "\(server.base)/v1/log", "-d",
            #"{"logs":["\u001b[31mred\u001b[0m said\nforged line\rback\u009b1m"]}"#,
        ])

        func admin(_ arguments: [String]) async throws -> String {
            let result = try await Command.run(Command.walletOrdersBinary, ["admin"] + arguments + database)
            #expect(result.status == 0, "\(result.error)")
            return result.output
        }
        let logs = try await admin(["logs"])
        #expect(logs.contains(#"\e[31mred\e[0m said\nforged line\rback\x9B1m"#), "\(logs)")
        let orders = try await admin(["orders"])
        #expect(orders.contains(#"\e]52;c;ZXZpbA==\x07N-1\e[2J"#), "\(orders)")
        for output in [logs, orders] {
            let controls = output.unicodeScalars.filter { $0 != "\n" && $0.properties.generalCategory == .control }
            #expect(controls.isEmpty, "\(controls.map(\.value))")
            #expect(!output.split(separator: "\n").contains { $0.hasPrefix("forged") }, "no line is the device's")
        }
        // Scripts still get the text as it is.
        let json = try await JSONValue.parse(Data(try admin(["logs", "--json"]).utf8))
        #expect(json["logs"]?.arrayValue?.first?["message"]?.stringValue == "\u{1B}[31mred\u{1B}[0m said\nforged line\rback\u{9B}1m")
    }
}
