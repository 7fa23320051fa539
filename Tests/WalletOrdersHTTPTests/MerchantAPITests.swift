import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct MerchantAPITests {
    private func orderBody(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> JSONValue {
        var fields = SampleOrder.json().objectValue!
        for key in ["updatedAt", "createdAt", "merchant", "orderTypeIdentifier", "orderIdentifier"] {
            fields.removeValue(forKey: key)
        }
        change(&fields)
        return .object(fields)
    }

    @Test(arguments: StoreEngine.allCases)
    func creatingFillsWhatTheServiceOwnsAndAnswersOrderDetails(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let response = try await client.merchant(.post, "/api/v1/orders", json: orderBody())
            #expect(response.status == .created)
            let details = try #require(response.json["orderDetails"]?.objectValue)
            #expect(Set(details.keys) == ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"])
            #expect(details["orderTypeIdentifier"] == .string(DevelopmentKeys.orderType))
            #expect(details["webServiceURL"] == .string("https://orders.example.com/wallet"))
            let token = try #require(details["authenticationToken"]?.stringValue)
            #expect(token.count == 64)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            #expect(id.count == 32)
            let order = try #require(response.json["order"])
            #expect(order["createdAt"] == .string("2026-11-22T10:15:30Z"))
            #expect(order["updatedAt"] == .string("2026-11-22T10:15:30Z"))
            #expect(order["schemaVersion"] == .int(1))
            #expect(order["merchant"]?["displayName"] == .string("MERCHANT_NAME"), "template defaults applied")

            let fetched = try await client.merchant(.get, "/api/v1/orders/\(DevelopmentKeys.orderType)/\(id)")
            #expect(fetched.status == .ok)
            #expect(fetched.json["order"] == order)
            #expect(fetched.json["registrations"] == .int(0))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anInvalidOrderAnswers400WithEveryProblemAndWritesNothing(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let response = try await client.merchant(
                .post,
                "/api/v1/orders",
                json: orderBody { order in
                    order["status"] = .string("lost")
                    order["orderManagementURL"] = nil
                    order["authenticationToken"] = .string("my-own-token-0123456789")
                    order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("cup.png")])])
                }
            )
            #expect(response.status == .badRequest)
            let problems = response.json["problems"]?.arrayValue ?? []
            #expect(problems == [.object(["path": .string("authenticationToken"), "message": .string("is set by the service; leave it out")])])

            let second = try await client.merchant(
                .post,
                "/api/v1/orders",
                json: orderBody { order in
                    order["status"] = .string("lost")
                    order["orderManagementURL"] = .string("ftp://shop.example.com/orders")
                    order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("cup.png")])])
                }
            )
            #expect(second.status == .badRequest)
            #expect(second.json["error"] == .string("the order is not valid"))
            let paths = Set((second.json["problems"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue })
            #expect(paths == ["status", "orderManagementURL", "lineItems[0].image"])
            let list = try await client.merchant(.get, "/api/v1/orders")
            #expect(list.json["orders"] == .array([]))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func badJSONAndTheWrongOrderTypeAnswer400(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let broken = try await client.request(
                .post,
                "/api/v1/orders",
                headers: [.authorization: "Bearer \(ServiceHarness.merchantKey)"],
                body: Data("{\"status\": ".utf8)
            )
            #expect(broken.status == .badRequest)
            #expect(broken.json["error"]?.stringValue?.hasPrefix("the body is not valid JSON") == true)
            let notObject = try await client.merchant(.post, "/api/v1/orders", json: .array([]))
            #expect(notObject.status == .badRequest)
            let otherType = try await client.merchant(
                .post,
                "/api/v1/orders",
                json: orderBody {
                    $0["orderTypeIdentifier"] = .string("order.com.example.other")
                }
            )
            #expect(otherType.status == .badRequest)
            #expect(otherType.json["problems"]?.arrayValue?.first?["path"] == .string("orderTypeIdentifier"))
            let badAsset = try await client.merchant(
                .post,
                "/api/v1/orders",
                json: orderBody {
                    $0["assets"] = .object(["../x.png": .string("iVBORw0KGgo="), "y.png": .string("%%%")])
                }
            )
            #expect(badAsset.status == .badRequest)
            #expect(
                Set(badAsset.json["problems"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
                    == ["assets.../x.png", "assets.y.png"]
            )
        }
    }

    /// Found by schemathesis: a non-string orderIdentifier crashed the server, and a null merchant was stored
    /// missing while the signed package had the template's.
    @Test(arguments: StoreEngine.allCases)
    func aNonStringIdentifierAnswers400AndNullFieldsTakeTheTemplateDefault(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            for identifier in [JSONValue.int(5), .null, .object([:])] {
                let response = try await client.merchant(.post, "/api/v1/orders", json: orderBody { $0["orderIdentifier"] = identifier })
                #expect(response.status == .badRequest, "\(identifier)")
                #expect(
                    response.json["problems"]?.arrayValue?.first
                        == .object(["path": .string("orderIdentifier"), "message": .string("must be a string, not \(identifier.typeName)")])
                )
            }
            let created = try await client.merchant(
                .post,
                "/api/v1/orders",
                json: orderBody {
                    $0["orderIdentifier"] = .string("null-merchant")
                    $0["merchant"] = .null
                }
            )
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let stored = try await client.merchant(.get, "/api/v1/orders/\(DevelopmentKeys.orderType)/null-merchant")
            let merchant = try #require(stored.json["order"]?["merchant"])
            #expect(merchant["displayName"] != nil, "the template's merchant is stored")
            let package = try await client.merchant(.get, "/api/v1/orders/\(DevelopmentKeys.orderType)/null-merchant/package")
            let orderJSON = try #require(try ZipArchive.read(Data(buffer: package.body)).first { $0.path == "order.json" })
            #expect(try JSONValue.parse(orderJSON.data)["merchant"] == merchant, "the stored order is the signed one")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aTakenIdentifierAnswers409(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let body = orderBody { $0["orderIdentifier"] = .string("A-1") }
            #expect(try await client.merchant(.post, "/api/v1/orders", json: body).status == .created)
            let again = try await client.merchant(.post, "/api/v1/orders", json: body)
            #expect(again.status == .conflict)
            #expect(again.json["error"]?.stringValue?.contains("already exists") == true)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func missingOrWrongKeysAnswer401(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            #expect(
                try await client.merchant(.post, "/api/v1/orders", json: orderBody(), key: "wrong-key-0123456789").status
                    == .unauthorized
            )
            let none = try await client.request(.get, "/api/v1/orders")
            #expect(none.status == .unauthorized)
            #expect(none.json["error"] == .string("missing or wrong credentials"))
            #expect(none.headers[.wwwAuthenticate] == "Bearer")
            #expect(try await client.merchant(.get, "/api/v1/orders").status == .ok)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func updatesQueueOnePushPerDeviceAndCollapseUntilSent(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            for device in ["d1", "d2", "d3"] {
                _ = try await client.register(order, device: device, pushToken: "\(device.count)ab\(device)".filter(\.isHexDigit))
            }
            _ = try await client.register(order, device: "d3", pushToken: "ffff")
            let patched = try await client.patch(order, .object(["status": .string("completed")]))
            #expect(patched.status == .ok)
            #expect(patched.json["pushesQueued"] == .int(3))
            #expect(patched.json["order"]?["status"] == .string("completed"))
            #expect(patched.json["version"] == .int(2))

            var replaced = patched.json["order"]!.objectValue!
            replaced["statusDescription"] = .string("STATUS_DELIVERED")
            let put = try await client.merchant(.put, "/api/v1/orders/\(order.type)/\(order.id)", json: .object(replaced))
            #expect(put.status == .ok)
            #expect(put.json["pushesQueued"] == .int(3))

            let pending = try await client.merchant(.get, "/api/v1/pushes?status=pending")
            let pushes = pending.json["pushes"]?.arrayValue ?? []
            #expect(pushes.count == 3, "two updates, one pending push per device")
            #expect(Set(pushes.compactMap { $0["deviceIdentifier"]?.stringValue }) == ["d1", "d2", "d3"])
            #expect(pushes.allSatisfy { $0["pushToken"] == nil }, "push tokens stay out of the listing")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aPatchOrPutThatChangesNothingWritesNoVersionAndQueuesNoPushOrWebhook(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let acme = try await client.addMerchant("acme")
            let partner = try await PartnerTrackingTests.addPartner("parcelco", for: ["acme"], client)
            let hook = try await client.merchant(.post, "/api/v1/webhooks", json: .object(["url": .string(WebhookAPITests.url)]), key: acme)
            #expect(hook.status == .created)
            let order = try await PartnerTrackingTests.order("1001", tracking: "1Z001", key: acme, client)
            #expect(try await client.register(order, device: "device-1").status == .created)
            harness.clock.advance(5)

            func outbox() async throws -> [Int] {
                [
                    try await client.store.pushes(PushFilter(), page: PageRequest(limit: 100)).records.count,
                    try await client.store.webhookDeliveries(type: order.type, id: order.id, limit: 100).count,
                ]
            }
            let before = try #require(try await client.store.order(type: order.type, id: order.id))
            let queuedBefore = try await outbox()
            let path = "/api/v1/orders/\(order.type)/1001"
            let current = try await client.merchant(.get, path, key: acme).json["order"]
            let fulfillment = try #require(before.document["fulfillments"]?.arrayValue?.first)
            let answers = [
                ("an empty patch", try await client.patch(order, .object([:]), key: acme)),
                ("a patch of the same values", try await client.patch(order, .object(["status": .string("open")]), key: acme)),
                ("the same order again", try await client.merchant(.put, path, json: current, key: acme)),
                (
                    "a partner's patch of the same progress",
                    try await client.patch(order, .object(["fulfillments": .array([fulfillment])]), key: partner)
                ),
            ]
            for (what, answer) in answers {
                #expect(answer.status == .ok, "\(what): \(String(buffer: answer.body))")
                #expect(answer.json["pushesQueued"] == .int(0), "\(what)")
                #expect(answer.json["version"] == .int(before.version), "\(what)")
                #expect(answer.json["order"]?["updatedAt"] == before.document["updatedAt"], "\(what)")
            }
            #expect(answers[0].1.json["order"] == before.document.json, "the order as it is")
            let after = try #require(try await client.store.order(type: order.type, id: order.id))
            #expect(after.version == before.version && after.updatedAt == before.updatedAt)
            #expect(try await client.store.versions(type: order.type, id: order.id).count == 1)
            #expect(try await outbox() == queuedBefore, "no push, no webhook")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func textHoldingANulCharacterIsRefusedWith400NamingWhereItIsOnEitherEngine(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            // PostgreSQL's text cannot hold NUL: refused alike on both engines, before anything reaches the store.
            let refused: [(what: String, answer: TestResponse, names: String)] = [
                (
                    "a create", try await client.merchant(.post, "/api/v1/orders", json: orderBody { $0["orderNumber"] = .string("A\u{0}B") }),
                    "orderNumber"
                ),
                ("a patch", try await client.patch(order, .object(["statusDescription": .string("Shipped\u{0}")])), "statusDescription"),
                (
                    "a nested field", try await client.patch(order, .object(["merchant": .object(["displayName": .string("\u{0}")])])),
                    "merchant.displayName"
                ),
                ("a member's name", try await client.patch(order, .object(["note\u{0}": .string("x")])), "note"),
                ("a query parameter", try await client.merchant(.get, "/api/v1/orders?orderNumber=%00"), "orderNumber"),
                ("another query parameter", try await client.merchant(.get, "/api/v1/orders/export?type=a%00"), "type"),
                ("a path", try await client.merchant(.get, "/api/v1/orders/\(order.type)/A%00B"), "path"),
            ]
            for (what, answer, names) in refused {
                #expect(answer.status == .badRequest, "\(what): \(answer.status) \(String(buffer: answer.body))")
                #expect(answer.headers[.contentType] == "application/json", "\(what)")
                #expect(String(buffer: answer.body).contains(names), "\(what): \(String(buffer: answer.body))")
            }
            let stored = try #require(try await client.store.order(type: order.type, id: order.id))
            #expect(stored.version == 1, "nothing written")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func serviceOwnedFieldsCannotChangeAndPatchNeedsMergePatch(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let path = "/api/v1/orders/\(order.type)/\(order.id)"
            for field in ["orderIdentifier", "authenticationToken", "webServiceURL", "createdAt"] {
                let response = try await client.patch(order, .object([field: .string("changed-value-0123456789")]))
                #expect(response.status == .badRequest, "\(field)")
                #expect(
                    response.json["problems"]?.arrayValue?.first?["message"]
                        == .string("is set by the service and cannot change")
                )
            }
            let text = try await client.merchant(
                .patch,
                path,
                json: .object(["status": .string("completed")]),
                contentType: "text/plain"
            )
            #expect(text.status == .unsupportedMediaType)
            let invalid = try await client.patch(order, .object(["status": .string("lost")]))
            #expect(invalid.status == .badRequest)
            let stored = try await client.store.order(type: order.type, id: order.id)
            #expect(stored?.version == 1, "a refused update writes nothing")
            #expect(
                try await client.patch(
                    ServiceHarness.OrderDetails(type: order.type, id: "missing", token: ""),
                    .object([:])
                ).status == .notFound
            )
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func perOrderAssetsArePackagedAndPatchedByPath(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
            let order = try await client.createOrder { order in
                order["assets"] = .object(["photo.png": .string(png.base64EncodedString())])
                order["lineItems"] = .array([.object(["title": .string("Photo"), "quantity": .int(1), "image": .string("photo.png")])])
            }
            let package = try await client.merchant(.get, "/api/v1/orders/\(order.type)/\(order.id)/package")
            #expect(package.status == .ok)
            #expect(package.headers[.contentType] == PackageBuilder.contentType)
            let report = PackageVerifier.verify(Data(buffer: package.body), trustedRoots: [DevelopmentKeys.shared.chain.root])
            #expect(report.problems == [])
            #expect(report.files.contains("photo.png"))

            // Removing an asset the order still names is refused; removing it with the reference works.
            let refused = try await client.patch(order, .object(["assets": .object(["photo.png": .null])]))
            #expect(refused.status == .badRequest)
            let accepted = try await client.patch(
                order,
                .object([
                    "assets": .object(["photo.png": .null]),
                    "lineItems": .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("mug.png")])]),
                ])
            )
            #expect(accepted.status == .ok)
            #expect(try await client.store.currentOrder(type: order.type, id: order.id)?.assets.isEmpty == true)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func oversizedBodiesAnswer413(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let response = try await client.request(
                .post,
                "/api/v1/orders",
                headers: [.authorization: "Bearer \(ServiceHarness.merchantKey)"],
                body: Data(repeating: 0x20, count: 9 * 1_024 * 1_024)
            )
            #expect(response.status == .contentTooLarge)
            #expect(response.json["error"] == .string("the request body is too large"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func listsPageThroughOrdersRegistrationsAndLogs(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            for index in 1...5 { _ = try await client.createOrder(id: "A-\(index)") }
            let first = try await client.merchant(.get, "/api/v1/orders?limit=2")
            #expect(first.json["orders"]?.arrayValue?.compactMap { $0["orderIdentifier"]?.stringValue } == ["A-5", "A-4"])
            let next = try #require(first.json["next"]?.stringValue)
            let second = try await client.merchant(.get, "/api/v1/orders?limit=2&before=\(next)")
            #expect(second.json["orders"]?.arrayValue?.compactMap { $0["orderIdentifier"]?.stringValue } == ["A-3", "A-2"])
            #expect(try await client.merchant(.get, "/api/v1/orders?limit=0").status == .badRequest)

            let order = ServiceHarness.OrderDetails(
                type: DevelopmentKeys.orderType,
                id: "A-1",
                token: try await client.store.order(type: DevelopmentKeys.orderType, id: "A-1")!.authenticationToken
            )
            _ = try await client.register(order, device: "phone-1", pushToken: "abcd")
            let registrations = try await client.merchant(.get, "/api/v1/orders/\(order.type)/A-1/registrations")
            #expect(registrations.json["registrations"]?.arrayValue?.first?["deviceIdentifier"] == .string("phone-1"))
            #expect(try await client.merchant(.get, "/api/v1/orders/\(order.type)/nope/registrations").status == .notFound)

            _ = try await client.request(.post, "/v1/log", body: Data(#"{"logs": ["hello"]}"#.utf8))
            let logs = try await client.merchant(.get, "/api/v1/logs")
            #expect(logs.json["logs"]?.arrayValue?.first?["message"] == .string("hello"))
            #expect(try await client.merchant(.get, "/api/v1/pushes?status=lost").status == .badRequest)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func ordersAndRegistrationsSurviveARestart(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        let box = OrderBox()
        try await harness.run { client in
            let order = try await client.createOrder()
            _ = try await client.register(order, device: "d1")
            _ = try await client.patch(order, .object(["status": .string("completed")]))
            box.set(order, package: Data(buffer: try await client.fetch(order).body))
        }
        let (order, package) = try #require(box.get())
        try await harness.run { client in
            let fetched = try await client.fetch(order)
            #expect(fetched.status == .ok)
            #expect(Data(buffer: fetched.body) == package)
            #expect(try await client.changed(device: "d1").json["orderIdentifiers"] == .array([.string(order.id)]))
            let stored = try await client.store.order(type: order.type, id: order.id)
            #expect(stored?.version == 2)
            #expect(stored?.status == .completed)
            #expect(try await client.store.pushes(PushFilter(status: .pending), page: PageRequest(limit: 10)).records.count == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func objectsNewerThanIOS16AreStoredWithAWarningInTheAnswer(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let returnInfo: JSONValue = .object(["returnPolicyURL": .string("http://shop.example.com/returns")])
            let order = try await client.createOrder { $0["returnInfo"] = returnInfo }
            let created = try await client.merchant(.get, "/api/v1/orders/\(order.type)/\(order.id)")
            #expect(created.json["order"]?["returnInfo"] == returnInfo, "stored as sent, plain http link included")

            let patched = try await client.patch(order, .object(["status": .string("completed")]))
            let warnings = patched.json["warnings"]?.arrayValue ?? []
            #expect(warnings.contains { $0["path"] == .string("returnInfo") }, "\(patched.json)")
            #expect(warnings.allSatisfy { $0["message"]?.stringValue?.isEmpty == false })
            let plain = try await client.patch(order, .object(["returnInfo": .null]))
            #expect(plain.json["warnings"] == .array([]))
        }
    }

    @Test func theOrderSchemaIsServedAsTheRepositoryHoldsIt() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let response = try await client.request(.get, "/schemas/order.json")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/schema+json")
            let file = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Sources/WalletOrdersSchemas/order.schema.json")
            #expect(Data(buffer: response.body) == (try Data(contentsOf: file)))
            #expect(response.json["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        }
    }
}

/// Carries a value out of one server run into the next.
private final class OrderBox: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var value: (ServiceHarness.OrderDetails, Data)?

    func set(_ order: ServiceHarness.OrderDetails, package: Data) { lock.withLock { value = (order, package) } }
    func get() -> (ServiceHarness.OrderDetails, Data)? { lock.withLock { value } }
}
