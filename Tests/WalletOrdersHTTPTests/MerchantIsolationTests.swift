import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// One merchant's key never reads, changes or even confirms another merchant's orders: every merchant API operation,
/// with each merchant's key, against each merchant's orders; a merchant's own succeed, every other answer is
/// byte for byte the answer for a missing order.
@Suite(.timeLimit(.minutes(5))) struct MerchantIsolationTests {
    /// A merchant as the test drives it: its key and the two orders it made.
    struct Shop: Sendable {
        let slug: String
        let key: String
        /// Its order `1001` (every shop has one) and one only it has, as Wallet knows them.
        let orders: [ServiceHarness.OrderDetails]
    }

    /// A whole order, as a PUT sends it (the service keeps identifiers, token and dates).
    static let replacement: JSONValue = {
        var fields = SampleOrder.json().objectValue ?? [:]
        for key in ["updatedAt", "createdAt", "merchant", "orderIdentifier", "orderTypeIdentifier"] { fields.removeValue(forKey: key) }
        return .object(fields)
    }()

    /// `replacement` with a change of its own: a replace that changes nothing writes no version.
    static let changedReplacement: JSONValue = {
        var fields = replacement.objectValue ?? [:]
        fields["statusDescription"] = .string("Replaced")
        return .object(fields)
    }()

    /// The order-level operations of the merchant API: a method, a path suffix under the order, and a body.
    static let operations:
        [(name: String, method: HTTPRequest.Method, suffix: String, body: JSONValue?, contentType: String, own: HTTPResponse.Status)] = [
            ("read", .get, "", nil, "application/json", .ok),
            ("replace", .put, "", changedReplacement, "application/json", .ok),
            ("patch", .patch, "", .object(["orderNumber": .string("N-99")]), "application/merge-patch+json", .ok),
            ("package", .get, "/package", nil, "application/json", .ok),
            ("registrations", .get, "/registrations", nil, "application/json", .ok),
            ("link", .post, "/links", .object(["reusable": .bool(true)]), "application/json", .created),
        ]

    @Test(arguments: StoreEngine.allCases)
    func everyMerchantAPIOperationActsOnTheKeysMerchantOnly(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            var shops: [Shop] = []
            for slug in ["alpha", "bravo", "charlie"] {
                let key = try await client.addMerchant(slug)
                let common = try await client.createOrder(id: "1001", key: key)
                let own = try await client.createOrder(id: "only-\(slug)", key: key) { $0["orderNumber"] = .string("N-\(slug)") }
                #expect(common.id == "\(slug):1001", "Wallet sees the merchant's namespace")
                shops.append(Shop(slug: slug, key: key, orders: [common, own]))
            }
            // The default merchant (the configuration's key) has an order of its own too, unprefixed: a platform
            // merchant naming it names an order in its own namespace, which it does not have.
            let defaultOrder = try await client.createOrder(id: "only-default")
            #expect(defaultOrder.id == "only-default")
            shops.append(Shop(slug: "default", key: ServiceHarness.merchantKey, orders: [defaultOrder]))
            let type = DevelopmentKeys.orderType

            for caller in shops {
                for owner in shops {
                    for order in owner.orders {
                        for operation in Self.operations {
                            let path = "/api/v1/orders/\(type)/\(order.id)\(operation.suffix)"
                            let answer = try await client.merchant(
                                operation.method,
                                path,
                                json: operation.body,
                                contentType: operation.contentType,
                                key: caller.key
                            )
                            if caller.slug == owner.slug {
                                #expect(answer.status == operation.own, "\(caller.slug) \(operation.name) its own \(order.id): \(answer.status)")
                                continue
                            }
                            let missing = try await client.merchant(
                                operation.method,
                                "/api/v1/orders/\(type)/no-such-order\(operation.suffix)",
                                json: operation.body,
                                contentType: operation.contentType,
                                key: caller.key
                            )
                            #expect(answer.status == .notFound, "\(caller.slug) \(operation.name) \(order.id)")
                            #expect(answer.status == missing.status)
                            #expect(
                                Data(buffer: answer.body) == Data(buffer: missing.body),
                                "\(caller.slug) \(operation.name) \(order.id): \(String(buffer: answer.body))"
                            )
                            #expect(answer.headers[.contentType] == missing.headers[.contentType])
                        }
                        // The outbox by order: another's order shows what a missing one shows, no push.
                        let pushes = try await client.merchant(.get, "/api/v1/pushes?order=\(order.id)", key: caller.key)
                        #expect(pushes.status == .ok)
                        if caller.slug != owner.slug { #expect(pushes.json["pushes"] == .array([])) }
                    }
                }
                // Lists show the merchant's own orders only, however asked.
                let listed = try await client.merchant(.get, "/api/v1/orders?limit=500", key: caller.key)
                let identifiers = Set(listed.json["orders"]?.arrayValue?.compactMap { $0["orderIdentifier"]?.stringValue } ?? [])
                #expect(identifiers == Set(caller.orders.map(\.id)), "\(caller.slug) lists \(identifiers)")
                for other in shops where other.slug != caller.slug && other.slug != "default" {
                    let numbered = try await client.merchant(.get, "/api/v1/orders?orderNumber=N-\(other.slug)", key: caller.key)
                    #expect(numbered.json["orders"] == .array([]), "\(caller.slug) finds \(other.slug)'s order number")
                }
            }
            // A patch by another merchant changed nothing: every order is still at version 1, but each owner's.
            for shop in shops {
                for order in shop.orders {
                    let stored = try #require(try await client.store.order(type: type, id: order.id))
                    #expect(stored.version == 3, "\(order.id): its owner's replace and patch only")
                }
            }
            // Every order follows the same parcel (the sample's EP123456789): a merchant's tracking event moves its
            // own orders only, and its answer names only them.
            for (index, shop) in shops.enumerated() {
                let event: JSONValue = .object([
                    "events": .array([
                        .object([
                            "id": .string("ev-\(shop.slug)"), "trackingNumber": .string("EP123456789"),
                            "status": .string("delivered"), "occurredAt": .string("2026-11-2\(index + 1)T10:00:00Z"),
                        ])
                    ])
                ])
                let answer = try await client.merchant(.post, "/api/v1/tracking-events", json: event, key: shop.key)
                let moved = answer.json["results"]?.arrayValue?.first?["orders"]?.arrayValue ?? []
                let named = Set(moved.compactMap { $0["orderIdentifier"]?.stringValue })
                #expect(named == Set(shop.orders.map { $0.id.replacingOccurrences(of: "\(shop.slug):", with: "") }), "\(shop.slug)")
                #expect(moved.allSatisfy { $0["merchant"] == .string(shop.slug) })
            }
            for shop in shops {
                for order in shop.orders {
                    let versions = try await client.store.versions(type: type, id: order.id)
                    #expect(versions.count == 4 && versions.last?.author == "merchant:\(shop.slug)", "\(order.id)")
                }
            }
        }
    }

    /// Import and export act on a merchant's own namespace: an import names orders as its merchant's, never another
    /// merchant's, uses only the order types the merchant may use and counts against its limits; an export holds its
    /// merchant's orders only, by their own identifiers.
    @Test(arguments: StoreEngine.allCases)
    func importAndExportActOnTheKeysMerchantsOrdersOnly(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let alpha = try await client.addMerchant("alpha")
            let bravo = try await client.addMerchant("bravo")
            _ = try await client.createOrder(id: "1001", key: alpha)
            _ = try await client.createOrder(id: "1001", key: bravo)
            _ = try await client.createOrder(id: "only-default")
            let type = DevelopmentKeys.orderType
            for (key, expected) in [(alpha, ["1001"]), (bravo, ["1001"]), (ServiceHarness.merchantKey, ["only-default"])] {
                let export = try await client.merchant(.get, "/api/v1/orders/export", key: key)
                #expect(export.lines.map { $0["orderIdentifier"]?.stringValue } == expected)
                #expect(!String(buffer: export.body).contains("alpha:") && !String(buffer: export.body).contains("bravo:"))
            }

            // alpha's export, changed, imported with bravo's key: bravo's 1001 changes, alpha's does not.
            let alphas = String(buffer: try await client.merchant(.get, "/api/v1/orders/export", key: alpha).body)
            var changed = try #require(alphas.split(separator: "\n").first.flatMap { try? JSONValue.parse(Data($0.utf8)).objectValue })
            changed["status"] = .string("completed")
            let imported = try await client.importOrders([String(decoding: JSONValue.object(changed).serialized(), as: UTF8.self)], key: bravo)
            #expect(imported.lines.map { $0["result"]?.stringValue } == ["updated"])
            #expect(try await client.store.order(type: type, id: "bravo:1001")?.document["status"] == .string("completed"))
            #expect(try await client.store.order(type: type, id: "alpha:1001")?.version == 1)

            // Naming another merchant's order: a platform merchant's line stays in its own namespace; the default
            // merchant's is refused, as creating it would be.
            let named = ImportExportTests.line("alpha:1001") { $0["status"] = .string("cancelled") }
            #expect(try await client.importOrders([named], key: bravo).lines.first?["result"] == .string("created"))
            #expect(try await client.store.order(type: type, id: "bravo:alpha:1001") != nil)
            let squat = try await client.importOrders([named]).lines.first
            #expect(squat?["result"] == .string("invalid"))
            #expect(squat?["problems"]?.arrayValue?.first?["path"] == .string("orderIdentifier"))
            let untouched = try #require(try await client.store.order(type: type, id: "alpha:1001"))
            #expect(untouched.version == 1 && untouched.document["status"] == .string("open"))

            // Only the order types the merchant may use, and within its limits.
            let otherType = ImportExportTests.line("2002") { $0["orderTypeIdentifier"] = .string("order.com.example.other") }
            let refused = try await client.importOrders([otherType], key: bravo).lines.first
            #expect(refused?["result"] == .string("invalid"))
            #expect(refused?["problems"]?.arrayValue?.first?["path"] == .string("orderTypeIdentifier"))
            let small = try await client.addMerchant("charlie", limits: MerchantLimits(maxOrders: 1))
            // The two lines run at once: either may take the last place, never both.
            let limited = try await client.importOrders([ImportExportTests.line("1"), ImportExportTests.line("2")], key: small).lines
            #expect(limited.map { $0["result"]?.stringValue }.sorted { ($0 ?? "") < ($1 ?? "") } == ["created", "invalid"])
            let over = limited.first { $0["result"] == .string("invalid") }
            #expect(over?["problems"]?.arrayValue?.first?["message"]?.stringValue?.contains("maxOrders") == true)
            var stored = 0
            for id in ["charlie:1", "charlie:2"] where try await client.store.order(type: type, id: id) != nil { stored += 1 }
            #expect(stored == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func twoMerchantsBothHaveAnOrder1001AndFindItByTheirOwnNumber(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let acme = try await client.addMerchant("acme")
            let globex = try await client.addMerchant("globex")
            let first = try await client.createOrder(id: "1001", key: acme) { $0["orderNumber"] = .string("1001") }
            let second = try await client.createOrder(id: "1001", key: globex) { $0["orderNumber"] = .string("1001") }
            #expect(first.id == "acme:1001" && second.id == "globex:1001")
            // Taken in its own namespace only.
            var again = Self.replacement.objectValue ?? [:]
            again["orderIdentifier"] = .string("1001")
            #expect(try await client.merchant(.post, "/api/v1/orders", json: .object(again), key: acme).status == .conflict)

            let found = try await client.merchant(.get, "/api/v1/orders?orderNumber=1001", key: acme)
            #expect(found.status == .ok)
            let orders = try #require(found.json["orders"]?.arrayValue)
            #expect(orders.count == 1)
            #expect(
                orders.first?["orderDetails"]
                    == .object([
                        "orderTypeIdentifier": .string(first.type), "orderIdentifier": .string("acme:1001"),
                        "webServiceURL": .string("https://orders.example.com/wallet"), "authenticationToken": .string(first.token),
                    ])
            )
            // The merchant names its order either way; the device API knows only Wallet's identifier.
            #expect(
                try await client.merchant(.get, "/api/v1/orders/\(first.type)/1001", key: acme).json["order"]?["orderIdentifier"]
                    == .string("acme:1001")
            )
            #expect(try await client.fetch(first).status == .ok)
            // The default merchant cannot name another merchant's namespace, in a path or in a new order.
            #expect(try await client.merchant(.get, "/api/v1/orders/\(first.type)/acme:1001").status == .notFound)
            var squat = Self.replacement.objectValue ?? [:]
            squat["orderIdentifier"] = .string("acme:2002")
            let squatting = try await client.merchant(.post, "/api/v1/orders", json: .object(squat))
            #expect(squatting.status == .badRequest)
            #expect(squatting.json["problems"]?.arrayValue?.first?["path"] == .string("orderIdentifier"))
        }
    }
}
