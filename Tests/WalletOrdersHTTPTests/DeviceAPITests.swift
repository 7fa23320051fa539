import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

/// Every row of the device API table, over HTTP against the real server and a real SQLite file.
@Suite(.timeLimit(.minutes(5))) struct DeviceAPITests {
    @Test(arguments: StoreEngine.allCases)
    func registeringAnswers201ThenOn200AndReplacesThePushToken(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            #expect(try await client.register(order, device: "device-1", pushToken: "AABB01").status == .created)
            #expect(try await client.register(order, device: "device-1", pushToken: "ccdd02").status == .ok)
            let registrations = try await client.store.registrations(RegistrationFilter(type: order.type, id: order.id), limit: 100)
            #expect(registrations.map(\.pushToken) == ["ccdd02"])
            #expect(try await client.register(order, device: "device-2").status == .created)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anOrderTakesTenDevicesThenAnswers429UntilOneLeaves(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            for number in 1...10 {
                #expect(try await client.register(order, device: "device-\(number)").status == .created)
            }
            let refused = try await client.register(order, device: "device-11")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "3600")
            #expect(refused.json["error"]?.stringValue?.contains("maxDevicesPerOrder") == true)
            // A device already registered may still change its push token; one that leaves makes room.
            #expect(try await client.register(order, device: "device-3", pushToken: "0123").status == .ok)
            #expect(try await client.store.registrationCount(type: order.type, id: order.id) == 10)
            let auth: HTTPFields = [.authorization: "AppleOrder \(order.token)"]
            #expect(try await client.request(.delete, "/v1/devices/device-3/registrations/\(order.type)/\(order.id)", headers: auth).status == .ok)
            #expect(try await client.register(order, device: "device-11").status == .created)
            let metrics = String(buffer: try await client.request(.get, "/metrics").body)
            #expect(metrics.contains("wallet_orders_registrations_refused_total 1"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aCompletedOrderKeepsItsDevicesAndTakesUpdatesUntilItsReturnDeadline(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            #expect(try await client.register(order, device: "device-1").status == .created)
            let completed = try await client.patch(
                order,
                .object([
                    "status": .string("completed"),
                    "returnInfo": .object([
                        "returnDeadline": .string("2026-12-25T00:00:00Z"),
                        "returnPolicyURL": .string("https://shop.example.com/returns"),
                    ]),
                ])
            )
            #expect(completed.status == .ok, "\(String(buffer: completed.body))")
            // A return after completion, as Apple's ReturnInfo allows until the deadline: stored, and pushed.
            let returned = try await client.patch(order, .object(["statusDescription": .string("Return received")]))
            #expect(returned.status == .ok, "\(String(buffer: returned.body))")
            #expect(returned.json["order"]?["statusDescription"] == .string("Return received"))
            #expect(try await client.store.registrationCount(type: order.type, id: order.id) == 1)
            let pushes = try await client.store.pushes(PushFilter(), page: PageRequest(limit: 10)).records
            #expect(pushes.count >= 1, "the device is pushed for each update")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func wrongTokenMissingTokenAndUnknownOrderAllAnswer401Alike(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let wrong = try await client.register(order, device: "d1", token: String(repeating: "0", count: 64))
            let unknown = try await client.register(
                ServiceHarness.OrderDetails(type: order.type, id: "no-such-order", token: order.token),
                device: "d1"
            )
            let missing = try await client.request(
                .post,
                "/v1/devices/d1/registrations/\(order.type)/\(order.id)",
                body: Data(#"{"pushToken":"aa"}"#.utf8)
            )
            let otherScheme = try await client.request(
                .post,
                "/v1/devices/d1/registrations/\(order.type)/\(order.id)",
                headers: [.authorization: "Bearer \(order.token)"],
                body: Data(#"{"pushToken":"aa"}"#.utf8)
            )
            for response in [wrong, unknown, missing, otherScheme] {
                #expect(response.status == .unauthorized)
                #expect(response.json == .object(["error": .string("missing or wrong credentials")]))
                #expect(response.headers[.wwwAuthenticate] == "AppleOrder")
            }
            #expect(try await client.store.registrations(RegistrationFilter(type: order.type, id: order.id), limit: 100).isEmpty)
            let fetch = try await client.fetch(ServiceHarness.OrderDetails(type: order.type, id: order.id, token: "x"))
            #expect(fetch.status == .unauthorized)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aBodyWithoutAUsablePushTokenAnswers400(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let path = "/v1/devices/d1/registrations/\(order.type)/\(order.id)"
            let auth: HTTPFields = [.authorization: "AppleOrder \(order.token)"]
            for body in [#"{}"#, #"{"pushToken": 12}"#, #"{"pushToken": "not hex!"}"#, #"{"pushToken": ""}"#, #"{"pushToken": "１２ab"}"#] {
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

    @Test(arguments: StoreEngine.allCases)
    func unregisteringAnswers200AlsoWhenNothingWasRegistered(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            _ = try await client.register(order, device: "d1")
            let path = "/v1/devices/d1/registrations/\(order.type)/\(order.id)"
            let auth: HTTPFields = [.authorization: "AppleOrder \(order.token)"]
            #expect(try await client.request(.delete, path, headers: auth).status == .ok)
            #expect(try await client.store.registrations(RegistrationFilter(type: order.type, id: order.id), limit: 100).isEmpty)
            #expect(try await client.request(.delete, path, headers: auth).status == .ok)
            #expect(try await client.request(.delete, path).status == .unauthorized)
            #expect(try await client.changed(device: "d1").status == .noContent)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func listingAnswers204Or200WithATagThatMovesForward(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
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
            // PostgreSQL may list an order again while some transaction in the cluster is older than its change
            // (see StoreConformanceTests); SQLite answers 204 at once.
            let again = try await client.changed(device: "d1", since: tag)
            #expect(again.status == .noContent || engine == .postgres)
            // A tag we never issued counts as none.
            #expect(try await client.changed(device: "d1", since: "yesterday").json["orderIdentifiers"]?.arrayValue?.count == 2)
            #expect(try await client.changed(device: "d1", since: "").status == .ok)

            #expect(try await client.patch(first, .object(["status": .string("completed")])).status == .ok)
            let after = try await client.changed(device: "d1", since: tag)
            #expect(after.json["orderIdentifiers"]?.arrayValue?.contains(.string("A-1")) == true)
            let newTag = try #require(after.json["lastModified"]?.stringValue)
            #expect(Int(newTag)! >= Int(tag)!)
            if engine == .sqlite {
                #expect(after.json["orderIdentifiers"] == .array([.string("A-1")]) && Int(newTag)! > Int(tag)!)
            }
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func twoUpdatesInOneSecondAndABackwardClockAreAllReported(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
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
                // Never later than now (RFC 9110, section 8.8.2.1), though updatedAt ran ahead of the clock.
                let sent = try #require(fetched.headers[.lastModified].flatMap(Self.httpDate))
                #expect(sent <= harness.clock.now, "after \(status)")
                lastModified = fetched.headers[.lastModified]
            }
            #expect(updatedAts.count == 3)
        }
    }

    /// The service's clock (the store's) a second ahead of this host's, as a database server's may be, or an update
    /// in the second before `Date`'s copy of the clock is renewed: `Last-Modified` was later than the answer's own
    /// `Date`, which RFC 9110 (section 8.8.2.1) forbids.
    @Test(arguments: StoreEngine.allCases)
    func lastModifiedIsNeverLaterThanTheAnswersDate(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        @Sendable func aheadOfThisHost() { harness.clock.advance(Date().timeIntervalSince(harness.clock.now) + 1) }
        try await harness.run { client in
            aheadOfThisHost()
            let order = try await client.createOrder()
            // Hummingbird writes `Date` from a copy of this host's clock renewed by a timer once a second, which a
            // loaded machine runs late: an answer whose `Date` is older than the second the request was sent in says
            // nothing of the rule, and the fetch is made again (the service's clock moved ahead of the host again).
            var fetched: TestResponse?
            for attempt in 0..<50 {
                if attempt > 0 { try await Task.sleep(for: .milliseconds(200)) }
                aheadOfThisHost()
                let sent = Date().timeIntervalSince1970.rounded(.down)
                let answer = try await client.fetch(order)
                let date = try #require(answer.headers[.date].flatMap(Self.httpDate))
                if date.timeIntervalSince1970 >= sent {
                    fetched = answer
                    break
                }
            }
            let current = try #require(fetched, "Date stayed behind this host's clock for 10 seconds")
            #expect(current.status == .ok)
            let lastModified = try #require(current.headers[.lastModified].flatMap(Self.httpDate))
            let date = try #require(current.headers[.date].flatMap(Self.httpDate))
            #expect(lastModified <= date, "Last-Modified \(lastModified), Date \(date)")
            // Asked again with what it said: 200 while `Last-Modified` was held below the version's own time (the
            // version is newer than that), 304 once it is that time (two seconds after the write, which a loaded
            // machine reaches within the attempts above).
            let stored = try #require(try await client.store.order(type: order.type, id: order.id))
            let heldBelow = lastModified.timeIntervalSince1970 < stored.updatedAt.timeIntervalSince1970.rounded(.down)
            let again = try await client.fetch(order, headers: [.ifModifiedSince: try #require(current.headers[.lastModified])])
            #expect(again.status == (heldBelow ? .ok : .notModified), "Last-Modified \(lastModified), version \(stored.updatedAt)")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func fetchingAnswersTheSignedPackageWithCacheHeaders(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let response = try await client.fetch(order)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(response.headers[.cacheControl] == "no-cache")
            // The test's clock stands at the update's second: Last-Modified is then the clock two seconds back, so that
            // it is never later than the answer's Date.
            #expect(response.headers[.lastModified] == "Sun, 22 Nov 2026 10:15:28 GMT")
            let etag = try #require(response.headers[.eTag])
            let package = Data(buffer: response.body)

            let cms = try await Command.verifySignature(ofPackage: package, rootPath: DevelopmentKeys.shared.rootPath)
            #expect(cms.status == 0, "\(cms.error)")
            let orderJSON = try #require(try ZipArchive.read(package).first { $0.path == "order.json" })
            let stored = try OrderDocument(data: orderJSON.data)
            #expect(stored.authenticationToken == order.token)
            #expect(stored.webServiceURL == "https://orders.example.com/wallet")

            // Built once per version: the same bytes again, and the store keeps their seal, not the package.
            #expect(Data(buffer: try await client.fetch(order).body) == package)
            let kept = try #require(try await client.store.orderForFetch(type: order.type, id: order.id)?.package)
            #expect(PackageSeal(encoded: kept) != nil)

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
            let head = try await client.request(
                .head,
                "/v1/orders/\(order.type)/\(order.id)",
                headers: [.authorization: "AppleOrder \(order.token)"]
            )
            #expect(head.status == .ok && head.headers[.eTag] == etag && head.body.readableBytes == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func logMessagesAreStoredAndUnreadableBodiesStillAnswer200(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let body = JSONValue.object(["logs": .array([.string("first"), .string("second"), .int(3)])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: body).status == .ok)
            #expect(try await client.request(.post, "/v1/log", body: Data("not json".utf8)).status == .ok)
            #expect(try await client.request(.post, "/v1/log").status == .ok)
            let long = JSONValue.object(["logs": .array([.string(String(repeating: "x", count: 10_000))])]).serialized()
            #expect(try await client.request(.post, "/v1/log", body: long).status == .ok)
            let huge = try await client.request(.post, "/v1/log", body: Data(repeating: 0x20, count: 300_000))
            #expect(huge.status == .contentTooLarge)

            let logs = try await client.store.logs(LogFilter(), page: PageRequest(limit: 10)).records
            #expect(logs.map(\.message) == [String(repeating: "x", count: 4_096), "second", "first"])
            #expect(logs.first?.remoteAddress == "127.0.0.1")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func oddCharactersInIdentifiersAnswer400WithJSON(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
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

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
