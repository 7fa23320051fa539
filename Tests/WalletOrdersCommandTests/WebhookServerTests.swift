import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Webhooks from the real server: the merchant API that manages them, and deliveries that survive the server being
/// killed in the middle of one.
@Suite(.timeLimit(.minutes(10))) struct WebhookServerTests {
    static let environment = ["WALLET_ORDERS_WEBHOOK_ALLOW_PRIVATE": "true"]

    static func json(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    @Test func aServerKilledMidDeliveryLosesNoEvent() async throws {
        let receiver = try await WebhookReceiver()
        let folder = try TemporaryDirectory("webhooks-killed")
        var server = try await DevelopmentServer.start(in: folder, environment: Self.environment)
        let created = try await Self.json(
            server.curl([
                "-X", "POST", "\(server.base)/api/v1/webhooks", "-H", "Authorization: Bearer \(server.merchantKey)",
                "-H", "Content-Type: application/json", "-d",
                #"{"url": "\#(receiver.url)", "events": ["order.added_to_wallet", "order.updated", "push.failed"]}"#,
            ])
        )
        let secret = try #require(created["secret"]?.stringValue, "\(created)")
        let endpoint = try #require(created["id"]?.stringValue)

        // The receiver takes the first delivery and holds it: the server is killed while it waits for the answer.
        try await receiver.answer(200, delay: 20)
        let order = try await server.createOrder()
        try await server.register(order, device: "device-1", pushToken: String(repeating: "ab", count: 32))
        _ = await eventually { !receiver.received().isEmpty }
        let held = try #require(receiver.received().first, "a delivery is under way")
        kill(server.command.process.processIdentifier, SIGKILL)
        server.command.process.waitUntilExit()
        try await receiver.answer(200)

        // Started again on the same database: the held delivery goes again once its claim's lease runs out, and the
        // events after the restart go too. A device whose token APNs refuses makes a push fail.
        server = try await DevelopmentServer.start(in: folder, name: "serve-again", environment: Self.environment)
        try await server.register(order, device: "device-2", pushToken: String(repeating: "cd", count: 128))
        let patched = try await server.patch(order, #"{"orderNumber": "R-2"}"#)
        #expect(patched.hasSuffix("200"), "\(patched)")
        // The merchant's view: every delivery delivered (the receiver's own log also counts the held one, which it
        // answered to a server that was gone).
        var deliveries: [JSONValue] = []
        for _ in 0..<90 {
            let listed = try await Self.json(
                server.curl(["\(server.base)/api/v1/webhooks/\(endpoint)/deliveries", "-H", "Authorization: Bearer \(server.merchantKey)"])
            )
            deliveries = listed["deliveries"]?.arrayValue ?? []
            if deliveries.count == 3, deliveries.allSatisfy({ $0["status"]?.stringValue == "delivered" }) { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(deliveries.count == 3)
        #expect(deliveries.allSatisfy { $0["status"]?.stringValue == "delivered" }, "\(deliveries)")
        let again = deliveries.first { $0["messageId"]?.stringValue == held }
        #expect(again?["attempts"]?.intValue == 2, "\(String(describing: again))")

        let verified = try await receiver.verified(secrets: [secret])
        let types = Dictionary(grouping: verified, by: \.type)
        #expect(Set(types["order.added_to_wallet"]?.map(\.id) ?? []) == [held], "the held delivery, sent again with its id")
        #expect(types["order.updated"]?.count == 1)
        #expect(types["push.failed"]?.count == 1, "\(verified.map(\.type))")
        #expect(types["push.failed"]?.first?.data["reason"]?.contains("BadDeviceToken") == true)
        #expect(types["order.updated"]?.first?.data["orderIdentifier"] == order.id)

        // The restarted server sent all three, and counted them; the push to the refused token too.
        let metrics = try await server.curl(["\(server.base)/metrics"])
        #expect(metrics.contains(#"wallet_orders_webhook_attempts_total{outcome="delivered"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"wallet_orders_push_attempts_total{outcome="token_rejected"} 1"#))

        // What an operator sees: the endpoint, whose merchant, enabled; never its secret.
        let admin = try await Command.run(
            Command.walletOrdersBinary,
            ["admin", "webhooks", "--json", "--database", folder.path("data/orders.sqlite")]
        )
        #expect(admin.status == 0, "\(admin.error)")
        let listed = try Self.json(admin.output)["webhooks"]?.arrayValue ?? []
        #expect(listed.map { $0["id"] } == [.string(endpoint)] && listed.first?["merchant"] == .string("default"))
        #expect(listed.first?["enabled"] == .bool(true) && !admin.output.contains(secret))
    }
}
