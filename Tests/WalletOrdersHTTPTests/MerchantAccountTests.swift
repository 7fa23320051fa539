import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// A merchant's keys, status, limits and template, as the merchant API and the operator's API answer them.
@Suite(.timeLimit(.minutes(5))) struct MerchantAccountTests {
    static let operatorKey = "operator-key-for-tests-0123456789"
    static let adminKey = "admin-key-for-tests-0123456789"

    @Test(arguments: StoreEngine.allCases)
    func revokedKeysAnswer401AndASuspendedMerchant403WhileItsOrdersServeDevices(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let key = try await client.addMerchant("acme")
            #expect(key.hasPrefix("wo_live_") && key.count == 8 + 12 + 1 + 64)
            let order = try await client.createOrder(key: key)
            let registry = MerchantRegistry(service: client.service)

            _ = try await registry.update("acme", MerchantChange(status: .suspended))
            try await client.service.merchants.reload()
            let refused = try await client.merchant(.get, "/api/v1/orders", key: key)
            #expect(refused.status == .forbidden)
            #expect(refused.json["error"]?.stringValue?.hasPrefix("merchant acme is suspended") == true)
            #expect(try await client.fetch(order).status == .ok, "its orders keep serving devices")

            _ = try await registry.update("acme", MerchantChange(status: .active))
            try await client.service.merchants.reload()
            #expect(try await client.merchant(.get, "/api/v1/orders", key: key).status == .ok)

            // Rotation: a second key works beside the first, and the first, revoked, no longer.
            let second = try await registry.createKey(for: "acme")
            let firstID = try #require(MerchantAPIKey(key)).id
            try await registry.revokeKey(firstID, of: "acme")
            try await client.service.merchants.reload()
            #expect(try await client.merchant(.get, "/api/v1/orders", key: key).status == .unauthorized)
            #expect(try await client.merchant(.get, "/api/v1/orders", key: second.text).status == .ok)
            // A key of the right form that no merchant holds, and one off by a character.
            #expect(try await client.merchant(.get, "/api/v1/orders", key: MerchantAPIKey().text).status == .unauthorized)
            var altered = second.text
            let last = altered.removeLast()
            altered.append(last == "0" ? "1" : "0")
            #expect(try await client.merchant(.get, "/api/v1/orders", key: altered).status == .unauthorized)
        }
    }

    @Test func aMerchantsOwnIdentifierIsNeverDotOrDotDot() async throws {
        try await ServiceHarness().run { client in
            let key = try await client.addMerchant("acme")
            for own in [".", ".."] {
                var fields = SampleOrder.json(orderIdentifier: own).objectValue!
                for name in ["updatedAt", "createdAt", "merchant"] { fields.removeValue(forKey: name) }
                let answer = try await client.merchant(.post, "/api/v1/orders", json: .object(fields), key: key)
                // Wallet's identifier would be acme:.., a fine path segment; the merchant's own is one of its URLs too.
                #expect(answer.status == .badRequest, "\(own)")
                #expect(answer.json["problems"]?.arrayValue?.first?["path"] == .string("orderIdentifier"))
            }
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aMerchantsLimitsAnswerWithTheLimitTheyName(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let key = try await client.addMerchant("acme", limits: MerchantLimits(maxOrders: 1, maxAssetBytes: 64))
            _ = try await client.createOrder(id: "first", key: key)
            var body = SampleOrder.json(orderIdentifier: "second").objectValue ?? [:]
            for field in ["updatedAt", "createdAt", "merchant"] { body.removeValue(forKey: field) }
            let second = try await client.merchant(.post, "/api/v1/orders", json: .object(body), key: key)
            #expect(second.status == .forbidden)
            #expect(second.json["limit"] == .string("maxOrders"))
            #expect(second.json["error"]?.stringValue?.contains("maxOrders") == true)
            #expect(try await client.store.order(type: DevelopmentKeys.orderType, id: "acme:second") == nil)

            // Files past maxAssetBytes: refused, naming the limit; the order keeps what it had.
            let photo = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
            let patch = try await client.merchant(
                .patch,
                "/api/v1/orders/\(DevelopmentKeys.orderType)/first",
                json: .object(["assets": .object(["photo.png": .string(photo.base64EncodedString())])]),
                contentType: "application/merge-patch+json",
                key: key
            )
            #expect(patch.status == .forbidden)
            #expect(patch.json["limit"] == .string("maxAssetBytes"))
            #expect(try await client.store.order(type: DevelopmentKeys.orderType, id: "acme:first")?.version == 1)

            // Two requests a second: a burst past it answers 429 with Retry-After (24 sent at once, so that a loaded
            // machine's slowness cannot refill the allowance between them).
            let slow = try await client.addMerchant("slow", limits: MerchantLimits(requestsPerSecond: 2))
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<24 { group.addTask { try await client.merchant(.get, "/api/v1/orders", key: slow) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limited = answers.first { $0.status == .tooManyRequests }
            let answer = try #require(limited)
            #expect(answer.headers[.retryAfter] != nil)
            #expect(answer.json["error"]?.stringValue?.contains("merchant slow is over its request rate") == true)
            // Another merchant is not slowed by slow's rate.
            #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aMerchantsTemplateBrandsItsPackagesAndIsCheckedWhenSet(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let key = try await client.addMerchant("acme")
            let registry = MerchantRegistry(service: client.service)
            let logo = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
            // A template naming a tracking logo it does not hold is refused, with the path of the problem.
            let refused = await #expect(throws: MerchantRegistryError.self) {
                try await registry.setTemplate(
                    of: "acme",
                    files: ["logo.png": logo],
                    defaults: .object([
                        "orderProvider": .object([
                            "displayName": .string("Acme Logistics"), "url": .string("https://acme.example.com"),
                            "trackingLogoNameLightColorScheme": .string("track-light.png"),
                            "trackingLogoNameDarkColorScheme": .string("track-dark.png"),
                        ])
                    ])
                )
            }
            guard case .invalid(let problems, _)? = refused else { return }
            #expect(problems.map(\.path).contains("defaults.orderProvider.trackingLogoNameLightColorScheme"))
            await #expect(throws: MerchantRegistryError.self) {
                try await registry.setTemplate(of: "acme", files: ["logo.png": Data("not a png".utf8)], defaults: nil)
            }

            _ = try await registry.setTemplate(
                of: "acme",
                files: ["logo.png": logo],
                defaults: .object(["merchant": .object(["url": .string("https://acme.example.com")])])
            )
            try await client.service.merchants.reload()
            let order = try await client.createOrder(key: key)
            let package = try await client.fetch(order)
            #expect(package.status == .ok)
            let files = try ZipArchive.read(Data(buffer: package.body))
            #expect(files.first { $0.path == "logo.png" }?.data == logo, "the merchant's logo, over the order type's")
            let document = try JSONValue.parse(try #require(files.first { $0.path == "order.json" }?.data))
            #expect(document["merchant"]?["displayName"] == .string("Shop acme"))
            #expect(document["merchant"]?["url"] == .string("https://acme.example.com"))
            #expect(PackageVerifier.verify(Data(buffer: package.body), trustedRoots: [DevelopmentKeys.shared.chain.root]).problems == [])
            // The default merchant's orders keep the order type's template.
            let own = try await client.fetch(try await client.createOrder(id: "plain"))
            let plainLogo = try ZipArchive.read(Data(buffer: own.body)).first { $0.path == "logo.png" }?.data
            #expect(plainLogo == (try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("logo.png"))))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theOperatorsAPIManagesMerchantsAndTheAdminKeyCannot(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey, operatorKey: Self.operatorKey) { client in
            func operate(
                _ method: HTTPRequest.Method,
                _ path: String,
                _ json: JSONValue? = nil,
                key: String = Self.operatorKey
            )
                async throws -> TestResponse
            {
                try await client.merchant(method, "/api/v1/admin/merchants\(path)", json: json, key: key)
            }
            #expect(try await operate(.get, "", key: Self.adminKey).status == .unauthorized, "the admin key only reads")
            #expect(try await operate(.get, "", key: ServiceHarness.merchantKey).status == .unauthorized)
            let made = try await operate(
                .post,
                "",
                .object([
                    "slug": .string("acme"), "displayName": .string("Acme"), "limits": .object(["maxOrders": .int(10)]),
                ])
            )
            #expect(made.status == .created)
            #expect(made.json["merchant"]?["limits"]?["maxOrders"] == .int(10))
            #expect(try await operate(.post, "", .object(["slug": .string("acme"), "displayName": .string("Again")])).status == .conflict)
            let bad = try await operate(.post, "", .object(["slug": .string("Not A Slug"), "displayName": .string("x")]))
            #expect(bad.status == .badRequest && bad.json["problems"]?.arrayValue?.first?["path"] == .string("slug"))

            let created = try await operate(.post, "/acme/keys")
            #expect(created.status == .created && created.headers[.cacheControl] == "no-store")
            let key = try #require(created.json["key"]?.stringValue)
            let keyID = try #require(created.json["id"]?.stringValue)
            _ = try await client.createOrder(key: key)
            let listed = try await operate(.get, "/acme/keys")
            #expect(listed.json["keys"]?.arrayValue?.map { $0["id"] } == [.string(keyID)])
            #expect(!String(buffer: listed.body).contains(key), "a key is shown once, when made")

            #expect(try await operate(.patch, "/acme", .object(["status": .string("suspended")])).status == .ok)
            #expect(try await client.merchant(.get, "/api/v1/orders", key: key).status == .forbidden)
            #expect(try await operate(.patch, "/acme", .object(["status": .string("active")])).status == .ok)
            #expect(try await client.merchant(.get, "/api/v1/orders", key: key).status == .ok)

            let template = try await operate(
                .put,
                "/acme/template",
                .object([
                    "files": .object(["logo.png": .string("bm90IGEgcG5n")])
                ])
            )
            #expect(template.status == .badRequest)
            #expect(template.json["problems"]?.arrayValue?.first?["path"] == .string("files.logo.png"))

            #expect(try await operate(.delete, "/acme/keys/\(keyID)").status == .ok)
            #expect(try await client.merchant(.get, "/api/v1/orders", key: key).status == .unauthorized)
            #expect(try await operate(.delete, "/acme/keys/\(keyID)").status == .notFound)
            #expect(try await operate(.get, "/nobody").status == .notFound)
        }
    }

    @Test func withoutAnOperatorKeyTheOperatorsAPIIsOff() async throws {
        let harness = try ServiceHarness(.sqlite)
        try await harness.run { client in
            let answer = try await client.merchant(.get, "/api/v1/admin/merchants")
            #expect(answer.status == .notFound)
            #expect(answer.json["error"]?.stringValue?.contains("operatorKey") == true)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func deviceLogsReachTheMerchantWhoseOrderTheyName(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let acme = try await client.addMerchant("acme")
            let globex = try await client.addMerchant("globex")
            let logs = JSONValue.object([
                "logs": .array([
                    .string("Failed to fetch order acme:1001: timed out"),
                    .string("GET https://orders.example.com/wallet/v1/orders/order.com.example.dev/globex%3A77 answered 500"),
                    .string("Something about no order at all"),
                ])
            ])
            #expect(try await client.request(.post, "/v1/log", body: logs.serialized()).status == .ok)
            func messages(_ key: String) async throws -> [String] {
                try await client.merchant(.get, "/api/v1/logs", key: key).json["logs"]?.arrayValue?
                    .compactMap { $0["message"]?.stringValue } ?? []
            }
            #expect(try await messages(acme) == ["Failed to fetch order acme:1001: timed out"])
            #expect(try await messages(globex).count == 1)
            #expect(try await messages(ServiceHarness.merchantKey) == ["Something about no order at all"])
        }
    }
}
