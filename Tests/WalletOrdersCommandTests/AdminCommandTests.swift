import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// `wallet-orders admin` against the database a running `serve` writes.
@Suite struct AdminCommandTests {
    let repository = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()

    @Test func adminReadsAndFixesWhatTheRunningServerWrote() async throws {
        let folder = try TemporaryDirectory("admin")
        let database = ["--database", folder.path("data/orders.sqlite")]
        let serve = try BackgroundCommand(["serve", "--port", "0"] + database, in: folder, name: "serve", directory: repository)
        let banner = try await serve.waitFor("Create a first order")
        let base = "http://127.0.0.1:\(try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1))"
        let key = try String(contentsOfFile: folder.path("data/merchant-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        func curl(_ arguments: [String]) throws -> String {
            try Command.run("curl", ["-s"] + arguments, directory: repository.path).output
        }
        let created = try JSONValue.parse(Data(try curl([
            "-X", "POST", "\(base)/api/v1/orders", "-H", "Authorization: Bearer \(key)",
            "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ]).utf8))["orderDetails"]
        let type = try #require(created?["orderTypeIdentifier"]?.stringValue)
        let id = try #require(created?["orderIdentifier"]?.stringValue)
        let token = try #require(created?["authenticationToken"]?.stringValue)
        for (device, pushToken) in [("device-1", "aa01"), ("device-2", "bb02")] {
            _ = try curl(["-X", "POST", "\(base)/v1/devices/\(device)/registrations/\(type)/\(id)",
                          "-H", "Authorization: AppleOrder \(token)", "-d", #"{"pushToken":"\#(pushToken)"}"#])
        }
        _ = try curl(["-X", "PATCH", "\(base)/api/v1/orders/\(type)/\(id)", "-H", "Authorization: Bearer \(key)",
                      "-H", "Content-Type: application/merge-patch+json", "-d", #"{"status":"completed"}"#])
        _ = try curl(["-X", "POST", "\(base)/v1/log", "-d", #"{"logs":["Wallet could not reach the service","all fine"]}"#])

        func admin(_ arguments: [String]) throws -> (status: Int32, output: String, json: JSONValue?) {
            let result = try Command.run(Command.walletOrdersBinary, ["admin"] + arguments + database)
            return (result.status, result.output + result.error, try? JSONValue.parse(Data(result.output.utf8)))
        }

        let orders = try admin(["orders", "--json"])
        let listed = try #require(orders.json?["orders"]?.arrayValue, "\(orders.output)")
        #expect(listed.count == 1)
        #expect(listed.first?["version"]?.intValue == 2 && listed.first?["registrations"]?.intValue == 2)
        #expect(try admin(["orders", "--status", "open", "--json"]).json?["orders"]?.arrayValue?.isEmpty == true)
        let table = try admin(["orders"]).output
        #expect(table.hasPrefix("TYPE"), "\(table)")
        #expect(table.contains(id) && table.contains("completed"), "\(table)")

        let order = try admin(["order", type, id, "--json"])
        #expect(order.json?["versions"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == ["open", "completed"])
        #expect(order.json?["registrations"]?.arrayValue?.count == 2)
        #expect(order.json?["pushes"]?.arrayValue?.count == 2)
        #expect(!order.output.contains(token), "the authentication token is a secret")
        #expect(try admin(["order", type, "missing"]).status != 0)

        #expect(try admin(["registrations", "--device", "device-1", "--json"]).json?["registrations"]?.arrayValue?.count == 1)
        let logs = try admin(["logs", "--contains", "COULD NOT", "--since", "1h", "--json"]).json?["logs"]?.arrayValue
        #expect(logs?.compactMap { $0["message"]?.stringValue } == ["Wallet could not reach the service"])
        #expect(try admin(["pushes", "--status", "pending", "--json"]).json?["pushes"]?.arrayValue?.count == 2)
        let stats = try admin(["stats", "--json"]).json
        #expect(stats?["outboxDepth"]?.intValue == 2 && stats?["orders"]?.intValue == 1 && stats?["devices"]?.intValue == 2)
        #expect(try admin(["stats"]).output.contains("outbox depth"))

        // Actions: re-send (the pending pushes already cover both devices), prune, rebuild after a renewal.
        #expect(try admin(["resend", type, id]).output == "queued a push for 2 devices; the running server sends it\n")
        #expect(try admin(["prune", "--logs-older-than", "1", "--failed-registrations", "--json"]).json
            == .object(["registrationsRemoved": .int(0), "logsRemoved": .int(0)]))
        #expect(try admin(["prune"]).status != 0, "prune needs to be told what to prune")
        let before = try curl(["-D", "-", "-o", folder.path("before.order"), "\(base)/v1/orders/\(type)/\(id)",
                               "-H", "Authorization: AppleOrder \(token)"])
        #expect(before.contains("200"))
        let rebuild = try Command.run(Command.walletOrdersBinary, ["admin", "rebuild-packages"] + database,
                                      directory: repository.path)
        #expect(rebuild.output == "rebuilt 1 package (orders of unconfigured types are left as they are)\n", "\(rebuild.error)")
        _ = try curl(["-o", folder.path("after.order"), "\(base)/v1/orders/\(type)/\(id)", "-H", "Authorization: AppleOrder \(token)"])
        let verified = try Command.run(Command.walletOrdersBinary, [
            "verify", folder.path("after.order"), "--ca", folder.path("data/dev-keys/root-ca.pem"), "--allow-http-web-service",
        ])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        #expect(serve.stop())
    }
}
