import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// The `/admin` page, loaded by headless Chromium (Debian's `chromium`) from a running `serve`.
@Suite struct AdminPageTests {
    let repository = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()
    let adminKey = "admin-key-for-the-page-0123456789"

    @Test func chromiumRendersTheAdminPageWithEveryTableAndEscapedDeviceLogs() async throws {
        let folder = try TemporaryDirectory("admin-page")
        let serve = try BackgroundCommand(
            ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")], in: folder, name: "serve",
            directory: repository, environment: ["WALLET_ORDERS_ADMIN_KEY": adminKey])
        let banner = try await serve.waitFor("Create a first order")
        let port = try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1)
        let base = "http://127.0.0.1:\(port)"
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
        _ = try curl(["-X", "POST", "\(base)/v1/devices/page-device/registrations/\(type)/\(id)",
                      "-H", "Authorization: AppleOrder \(token)", "-d", #"{"pushToken":"0123456789abcdef0123"}"#])
        _ = try curl(["-X", "PATCH", "\(base)/api/v1/orders/\(type)/\(id)", "-H", "Authorization: Bearer \(key)",
                      "-H", "Content-Type: application/merge-patch+json", "-d", #"{"status":"completed"}"#])
        _ = try curl(["-X", "POST", "\(base)/v1/log", "-d", #"{"logs":["<script>document.title='owned'</script> fetch failed"]}"#])

        let refused = try curl(["-o", "/dev/null", "-D", "-", "\(base)/admin"])
        #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
        #expect(refused.contains(#"WWW-Authenticate: Basic realm="wallet-orders admin""#))

        let chromium = try Command.run("chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--dump-dom",
            "http://admin:\(adminKey)@127.0.0.1:\(port)/admin",
        ])
        let dom = chromium.output
        #expect(chromium.status == 0, "\(chromium.error)")
        #expect(dom.contains("<title>wallet-orders admin</title>"), "\(dom)")
        for table in ["stats", "orders", "registrations", "pushes", "logs"] {
            #expect(dom.contains(#"<table id="\#(table)">"#), "table \(table) is missing")
        }
        #expect(dom.contains(#"<td>\#(id)</td><td class="completed">completed</td><td>2</td><td>1</td>"#), "\(dom)")
        #expect(dom.contains("<td>page-device</td>"))
        #expect(dom.contains(#"<td class="pending">pending</td>"#))
        #expect(dom.contains("&lt;script&gt;document.title='owned'&lt;/script&gt; fetch failed"), "the log message is escaped")
        #expect(!dom.contains("<script"), "no script made it into the page")
        let consoleProblems = chromium.error.split(separator: "\n").filter {
            $0.contains("CONSOLE") || $0.contains("Refused to") || $0.contains("net::ERR")
        }
        #expect(consoleProblems.isEmpty, "\(consoleProblems)")
        #expect(!dom.contains(token), "the order's authentication token never appears")
        #expect(serve.stop())
    }
}
