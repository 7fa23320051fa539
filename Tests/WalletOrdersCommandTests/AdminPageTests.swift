import Foundation
import Testing
import WalletOrdersTesting

/// The operator's console (`/admin`) on a running `serve`, used in headless Chromium (Debian's `chromium`) as a person
/// uses it: the search, an order's page, the charts.
@Suite(.timeLimit(.minutes(10))) struct AdminPageTests {
    let adminKey = "admin-key-for-the-page-0123456789"
    /// Where the Chromium run keeps its screenshots: under the build folder, so they outlive the test.
    static let output = DevelopmentServer.repository.appendingPathComponent(".build/test-output/console").path

    @Test func chromiumFindsAnOrderByItsTrackingNumberAndReadsItsVersionsDevicesPushesAndCharts() async throws {
        let folder = try TemporaryDirectory("admin-page")
        let server = try await DevelopmentServer.start(in: folder, environment: ["WALLET_ORDERS_ADMIN_KEY": adminKey])
        let order = try await server.createOrder()
        _ = try await server.createOrder()
        try await server.register(order, device: "console-phone", pushToken: "0123456789abcdef0123")
        let tracking = "1Z999AA10123456784"
        let patched = try await server.patch(
            order,
            #"{"fulfillments":[{"fulfillmentType":"shipping","fulfillmentIdentifier":"parcel-1","status":"shipped","carrier":"UPS","trackingNumber":"\#(tracking)"}]}"#
        )
        #expect(patched.hasSuffix("200"), "\(patched)")
        // A long line from a device, naming the order, with a control character in it: it wraps and shows the control.
        let long = String(repeating: "x", count: 600)
        _ = try await server.curl([
            "-X", "POST", "\(server.base)/v1/log",
            "-d", #"{"logs":["<script>document.title='owned'</script> fetch of \#(order.id) failed \u0007 \#(long)"]}"#,
        ])

        let refused = try await server.curl(["-o", "/dev/null", "-D", "-", "\(server.base)/admin"])
        #expect(refused.hasPrefix("HTTP/1.1 401"), "\(refused)")
        #expect(refused.contains(#"WWW-Authenticate: Basic realm="wallet-orders admin""#))

        let script = DevelopmentServer.repository.appendingPathComponent("Tests/console/console.sh").path
        let run = try await Command.run(
            script,
            [server.base, tracking, Self.output],
            environment: ProcessInfo.processInfo.environment.merging(["ADMIN_KEY": adminKey, "ORDER_TOKEN": order.token]) { $1 }
        )
        print(run.output)
        #expect(run.status == 0, "\(run.output)\n\(run.error)")
        #expect(run.output.contains("found: \(order.id)"), "\(run.output)")
        #expect(run.output.contains("console: ok"))
        let screenshots = run.output.matches(of: /screenshot: (\S+)/).map { String($0.1) }
        #expect(screenshots.map { URL(fileURLWithPath: $0).lastPathComponent } == ["orders.png", "search.png", "order.png", "activity.png"])
        for path in screenshots {
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]), "a PNG screenshot is kept at \(path)")
        }
        #expect(await server.command.stopped())
    }
}
