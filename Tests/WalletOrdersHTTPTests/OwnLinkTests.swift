import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// An order's own download link, for a shop's emails: in every webhook about the order and with the lookup by order
/// number, reusable for a month, stored nowhere, and refused alike when changed, moved to another order or expired.
@Suite(.timeLimit(.minutes(3))) struct OwnLinkTests {
    @Test(arguments: StoreEngine.allCases)
    func theWebhooksAndTheLookupByNumberGiveALinkThatDownloadsTheOrderUntilItExpires(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let hook = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(WebhookAPITests.url)]))
            #expect(hook.status == .created)
            let order = try await client.createOrder(id: "mail-1")
            let other = try await client.createOrder(id: "mail-2") { $0["orderNumber"] = .string("2002") }
            #expect(try await client.patch(order, .object(["statusDescription": .string("Packed")])).status == .ok)

            // Each webhook's data holds a link to the order.
            let deliveries = try await client.store.webhookDeliveries(type: order.type, id: order.id, limit: 10)
            #expect(Set(deliveries.map(\.event)) == [.orderCreated, .orderUpdated])
            var urls: [String] = []
            for delivery in deliveries {
                let detail = try JSONValue.parse(Data(delivery.detail.utf8))
                urls.append(try #require(detail["downloadURL"]?.stringValue, "\(delivery.event)"))
            }
            // So does the lookup by the shop's order number.
            let found = try await client.merchant(.get, "/api/v1/orders?orderNumber=1001")
            let entries = try #require(found.json["orders"]?.arrayValue)
            #expect(entries.count == 1)
            urls.append(try #require(entries.first?["downloadURL"]?.stringValue))

            func path(_ url: String) -> String { String(url.dropFirst(ServiceHarness.webServiceURL.count)) }
            for url in urls {
                #expect(url.hasPrefix("\(ServiceHarness.webServiceURL)/links/o1."))
                // Reusable: twice, the order's current package, signed as Wallet checks it.
                for _ in 0..<2 {
                    let downloaded = try await client.request(.get, path(url))
                    #expect(downloaded.status == .ok)
                    let cms = try await Command.verifySignature(ofPackage: Data(buffer: downloaded.body), rootPath: DevelopmentKeys.shared.rootPath)
                    #expect(cms.status == 0, "\(cms.error)")
                    #expect(downloaded.headers[.contentDisposition] == "attachment; filename=\"mail-1.order\"")
                }
            }

            // Changed in its code, its expiry or its order, or a link of no order: the answer of a link that never was.
            let missing = try await client.request(.get, "/links/" + String(repeating: "ab", count: 32))
            #expect(missing.status == .notFound)
            let url = try #require(urls.last)
            var parts = path(url).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let otherID = Data(other.id.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            let forged = [
                parts[0...3].joined(separator: ".") + "." + String(parts[4].reversed()),
                parts[0...2].joined(separator: ".") + ".\(Int(parts[3])! + 86_400)." + parts[4],
                parts[0...1].joined(separator: ".") + ".\(otherID)." + parts[3...4].joined(separator: "."),
            ]
            for attempt in forged {
                let answer = try await client.request(.get, attempt)
                #expect(answer.status == .notFound, "\(attempt)")
                #expect(Data(buffer: answer.body) == Data(buffer: missing.body))
            }
            // A month and a day later, the link has expired.
            harness.clock.advance(31 * 86_400)
            parts = path(url).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let expired = try await client.request(.get, parts.joined(separator: "."))
            #expect(expired.status == .notFound && Data(buffer: expired.body) == Data(buffer: missing.body))
        }
    }
}
