import Foundation
import Testing
import WalletOrdersTesting

/// The `/admin` page, loaded by headless Chromium (Debian's `chromium`) from a running `serve`.
@Suite struct AdminPageTests {
    let adminKey = "admin-key-for-the-page-0123456789"

    @Test func chromiumRendersTheAdminPageWithEveryTableAndEscapedDeviceLogs() async throws {
        let folder = try TemporaryDirectory("admin-page")
        let server = try await DevelopmentServer.start(
            in: folder,
            arguments: ["--no-local-apns"],
            environment: ["WALLET_ORDERS_ADMIN_KEY": adminKey]
        )
        let order = try server.createOrder()
        try server.register(order, device: "page-device", pushToken: "0123456789abcdef0123")
        _ = try server.patch(order, #"{"status":"completed"}"#)
        _ = try server.curl([
            "-X", "POST", "\(server.base)/v1/log",
            "-d", #"{"logs":["<script>document.title='owned'</script> fetch failed"]}"#,
        ])

        let refused = try server.curl(["-o", "/dev/null", "-D", "-", "\(server.base)/admin"])
        #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
        #expect(refused.contains(#"WWW-Authenticate: Basic realm="wallet-orders admin""#))

        let chromium = try Command.run(
            "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--dump-dom",
                server.base.replacingOccurrences(of: "http://", with: "http://admin:\(adminKey)@") + "/admin",
            ]
        )
        let dom = chromium.output
        #expect(chromium.status == 0, "\(chromium.error)")
        #expect(dom.contains("<title>wallet-orders admin</title>"), "\(dom)")
        for table in ["stats", "orders", "registrations", "pushes", "merchants", "logs"] {
            #expect(dom.contains(#"<table id="\#(table)">"#), "table \(table) is missing")
        }
        #expect(dom.contains(#"<td>\#(order.id)</td><td class="completed">completed</td><td>2</td><td>1</td>"#), "\(dom)")
        #expect(dom.contains("<td>page-device</td>"))
        #expect(dom.contains(#"<td>default</td><td>Default</td><td class="active">active</td><td>1</td>"#), "the default merchant holds the order")
        #expect(dom.contains(#"<td class="pending">pending</td>"#))
        #expect(dom.contains("&lt;script&gt;document.title='owned'&lt;/script&gt; fetch failed"), "the log message is escaped")
        #expect(!dom.contains("<script"), "no script made it into the page")
        let consoleProblems = chromium.error.split(separator: "\n").filter {
            $0.contains("CONSOLE") || $0.contains("Refused to") || $0.contains("net::ERR")
        }
        #expect(consoleProblems.isEmpty, "\(consoleProblems)")
        #expect(!dom.contains(order.token), "the order's authentication token never appears")
        #expect(server.command.stop())
    }
}
