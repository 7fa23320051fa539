import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

/// Every row of the device API table, over HTTP against the real server and a real SQLite file.
@Suite struct DeviceAPITests {
    @Test func registeringAnswers201ThenOn200AndReplacesThePushToken() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            #expect(try await client.register(order, device: "device-1", pushToken: "AABB01").status == .created)
            #expect(try await client.register(order, device: "device-1", pushToken: "ccdd02").status == .ok)
            let registrations = try await client.service.store.registrations(type: order.type, id: order.id)
            #expect(registrations.map(\.pushToken) == ["ccdd02"])
            #expect(try await client.register(order, device: "device-2").status == .created)
        }
    }

    @Test func wrongTokenMissingTokenAndUnknownOrderAllAnswer401Alike() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            let wrong = try await client.register(order, device: "d1", token: String(repeating: "0", count: 64))
            let unknown = try await client.register(
                ServiceHarness.OrderDetails(type: order.type, id: "no-such-order", token: order.token), device: "d1")
            let missing = try await client.request(
                .post, "/v1/devices/d1/registrations/\(order.type)/\(order.id)",
                body: Data(#"{"pushToken":"aa"}"#.utf8))
            let otherScheme = try await client.request(
                .post, "/v1/devices/d1/registrations/\(order.type)/\(order.id)",
                headers: [.authorization: "Bearer \(order.token)"], body: Data(#"{"pushToken":"aa"}"#.utf8))
            for response in [wrong, unknown, missing, otherScheme] {
                #expect(response.status == .unauthorized)
                #expect(response.json == .object(["error": .string("missing or wrong credentials")]))
                #expect(response.headers[.wwwAuthenticate] == "AppleOrder")
            }
            #expect(try await client.service.store.registrations(type: order.type, id: order.id).isEmpty)
            let fetch = try await client.fetch(ServiceHarness.OrderDetails(type: order.type, id: order.id, token: "x"))
            #expect(fetch.status == .unauthorized)
        }
    }

    @Test func aBodyWithoutAUsablePushTokenAnswers400() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            let path = "/v1/devices/d1/registrations/\(order.type)/\(order.id)"
            let auth: HTTPFields = [.authorization: "AppleOrder \(order.token)"]
            for body in [#"{}"#, #"{"pushToken": 12}"#, #"{"pushToken": "not hex!"}"#, #"{"pushToken": ""}"#] {
                let response = try await client.request(.post, path, headers: auth, body: Data(body.utf8))
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.json["problems"]?.arrayValue?.first?["path"] == .string("pushToken"))
            }
            let broken = try await client.request(.post, path, headers: auth, body: Data("{\"pushToken\": ".utf8))
            #expect(broken.status == .badRequest)
            #expect(broken.json["error"]?.stringValue?.hasPrefix("the body is not valid JSON") == true)
            let huge = try await client.request(.post, path, headers: auth, body: Data(repeating: 0x20, count: 10_000))
            #expect(huge.status == .contentTooLarge)
            #expect(huge.json["error"] == .string("the request body is too large"))
        }
    }

    @Test func unregisteringAnswers200AlsoWhenNothingWasRegistered() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            _ = try await client.register(order, device: "d1")
            let path = "/v1/devices/d1/registrations/\(order.type)/\(order.id)"
            let auth: HTTPFields = [.authorization: "AppleOrder \(order.token)"]
            #expect(try await client.request(.delete, path, headers: auth).status == .ok)
            #expect(try await client.service.store.registrations(type: order.type, id: order.id).isEmpty)
            #expect(try await client.request(.delete, path, headers: auth).status == .ok)
            #expect(try await client.request(.delete, path).status == .unauthorized)
            #expect(try await client.changed(device: "d1").status == .noContent)
        }
    }

    @Test func listingAnswers204Or200WithATagThatMovesForward() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            #expect(try await client.changed(device: "nobody").status == .noContent)
            let first = try await client.createOrder(id: "A-1")
            let second = try await client.createOrder(id: "A-2")
            _ = try await client.createOrder(id: "A-3")
            _ = try await client.register(first, device: "d1")
            _ = try await client.register(second, device: "d1")

            let all = try await client.changed(device: "d1")
            #expect(all.status == .ok)
            #expect(all.json["orderIdentifiers"] == .array([.string("A-1"), .string("A-2")]))
            let tag = try #require(all.json["lastModified"]?.stringValue)
            #expect(try await client.changed(device: "d1", since: tag).status == .noContent)
            // A tag we never issued counts as none.
            #expect(try await client.changed(device: "d1", since: "yesterday").json["orderIdentifiers"]?.arrayValue?.count == 2)
            #expect(try await client.changed(device: "d1", since: "").status == .ok)

            #expect(try await client.patch(first, .object(["status": .string("completed")])).status == .ok)
            let after = try await client.changed(device: "d1", since: tag)
            #expect(after.json["orderIdentifiers"] == .array([.string("A-1")]))
            let newTag = try #require(after.json["lastModified"]?.stringValue)
            #expect(Int(newTag)! > Int(tag)!)
        }
    }

    @Test func twoUpdatesInOneSecondAndABackwardClockAreAllReported() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            _ = try await client.register(order, device: "d1")
            var tag = try #require(try await client.changed(device: "d1").json["lastModified"]?.stringValue)
            var lastModified = try await client.fetch(order).headers[.lastModified]
            var updatedAts: Set<String> = []
            // The clock stands still for two updates, then steps back an hour for a third.
            for (step, status) in [(0.0, "completed"), (0.0, "open"), (-3_600.0, "cancelled")] {
                harness.clock.advance(step)
                let response = try await client.patch(order, .object(["status": .string(status)]))
                #expect(response.status == .ok)
                updatedAts.insert(try #require(response.json["order"]?["updatedAt"]?.stringValue))
                let changed = try await client.changed(device: "d1", since: tag)
                #expect(changed.json["orderIdentifiers"] == .array([.string(order.id)]), "after \(status)")
                tag = try #require(changed.json["lastModified"]?.stringValue)
                // A device holding the previous Last-Modified must not be told 304.
                let fetched = try await client.fetch(order, headers: [.ifModifiedSince: try #require(lastModified)])
                #expect(fetched.status == .ok, "after \(status)")
                #expect(fetched.headers[.lastModified] != lastModified)
                lastModified = fetched.headers[.lastModified]
            }
            #expect(updatedAts.count == 3)
        }
    }

    @Test func fetchingAnswersTheSignedPackageWithCacheHeaders() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            let response = try await client.fetch(order)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(response.headers[.cacheControl] == "no-cache")
            #expect(response.headers[.lastModified] == "Sun, 22 Nov 2026 10:15:30 GMT")
            let etag = try #require(response.headers[.eTag])
            let package = Data(buffer: response.body)

            // Checked by openssl, not by our own code.
            let folder = try TemporaryDirectory("fetched")
            try folder.write("o.order", package)
            #expect(try Command.run("unzip", ["-q", folder.path("o.order"), "-d", folder.path("x")]).status == 0)
            let cms = try Command.run("openssl", [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", folder.path("x/signature"),
                "-content", folder.path("x/manifest.json"), "-CAfile", DevelopmentKeys.shared.rootPath,
                "-purpose", "any", "-out", "/dev/null",
            ])
            #expect(cms.status == 0, "\(cms.error)")
            let stored = try OrderDocument(data: Data(contentsOf: URL(fileURLWithPath: folder.path("x/order.json"))))
            #expect(stored.authenticationToken == order.token)
            #expect(stored.webServiceURL == "https://orders.example.com/wallet")

            // Built once per version: the same bytes again, straight from the store.
            #expect(Data(buffer: try await client.fetch(order).body) == package)
            #expect(try await client.service.store.package(type: order.type, id: order.id, version: 1) == package)

            for headers: HTTPFields in [
                [.ifModifiedSince: "Sun, 22 Nov 2026 10:15:30 GMT"],
                [.ifModifiedSince: "Sun, 22 Nov 2026 11:00:00 GMT"],
                [.ifModifiedSince: "1795342530"],
                [.ifNoneMatch: etag],
                [.ifNoneMatch: "\"other\", \(etag)"],
            ] {
                let cached = try await client.fetch(order, headers: headers)
                #expect(cached.status == .notModified, "\(headers)")
                #expect(cached.body.readableBytes == 0)
            }
            for headers: HTTPFields in [
                [.ifModifiedSince: "Sun, 22 Nov 2026 10:15:29 GMT"],
                [.ifModifiedSince: "1795342529"],
                [.ifModifiedSince: "not a date"],
                [.ifNoneMatch: "\"0\"", .ifModifiedSince: "Sun, 22 Nov 2026 11:00:00 GMT"],
            ] {
                #expect(try await client.fetch(order, headers: headers).status == .ok, "\(headers)")
            }

            // HEAD answers the same headers without the package.
            let head = try await client.request(.head, "/v1/orders/\(order.type)/\(order.id)",
                                                headers: [.authorization: "AppleOrder \(order.token)"])
            #expect(head.status == .ok && head.headers[.eTag] == etag && head.body.readableBytes == 0)
        }
    }

    @Test func logMessagesAreStoredAndUnreadableBodiesStillAnswer200() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let body = JSONValue.object(["logs": .array([.string("first"), .string("second"), .int(3)])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: body).status == .ok)
            #expect(try await client.request(.post, "/v1/log", body: Data("not json".utf8)).status == .ok)
            #expect(try await client.request(.post, "/v1/log").status == .ok)
            let long = JSONValue.object(["logs": .array([.string(String(repeating: "x", count: 10_000))])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: long).status == .ok)
            let huge = try await client.request(.post, "/v1/log", body: Data(repeating: 0x20, count: 300_000))
            #expect(huge.status == .contentTooLarge)

            let logs = try await client.service.store.logs(limit: 10)
            #expect(logs.map(\.message) == [String(repeating: "x", count: 4_096), "second", "first"])
            #expect(logs.first?.remoteAddress == "127.0.0.1")
        }
    }

    @Test func oddCharactersInIdentifiersAnswer400WithJSON() async throws {
        let harness = try ServiceHarness()
        try await harness.run { client in
            let order = try await client.createOrder()
            for path in [
                "/v1/devices/a%20b/registrations/\(order.type)",
                "/v1/devices/%E2%9C%93/registrations/\(order.type)",
                "/v1/devices/d1/registrations/\(order.type)%2F..%2Fx",
                "/v1/devices/\(String(repeating: "d", count: 200))/registrations/\(order.type)",
                "/v1/orders/\(order.type)/a%00b",
            ] {
                let response = try await client.request(.get, path, headers: [.authorization: "AppleOrder \(order.token)"])
                #expect(response.status == .badRequest, "\(path)")
                #expect(response.json["error"]?.stringValue != nil, "\(path)")
            }
            // Percent-encoded characters that are allowed decode to the same identifier.
            #expect(try await client.request(.get, "/v1/devices/d%2D1/registrations/\(order.type)").status == .noContent)
        }
    }
}
