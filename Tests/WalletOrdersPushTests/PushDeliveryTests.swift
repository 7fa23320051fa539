import Foundation
import Logging
import Testing
import WalletOrdersAPNS
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPush
import WalletOrdersStore
import WalletOrdersTesting

/// Pushes from the outbox through libcurl over HTTP/2 and TLS to the local APNs, end to end.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PushDeliveryTests {
    let devices = ["d1": "aa01", "d2": "bb02", "d3": "cc03"]

    @Test(arguments: StoreEngine.allCases)
    func anUpdateSendsExactlyOnePushPerDeviceWithAppleHeadersAndAValidToken(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: devices)
        #expect(try await harness.update(order, status: "completed") == 3)
        #expect(try await harness.update(order, status: "open") == 3, "a second update before sending collapses")

        #expect(try await harness.worker().sendDue() == 3)
        let received = harness.apns.received
        #expect(received.count == 3)
        #expect(Set(received.map(\.deviceToken)) == ["aa01", "bb02", "cc03"])
        for push in received {
            #expect(push.status == 200, "\(push)")
            #expect(push.topic == DevelopmentKeys.orderType)
            #expect(push.pushType == "background")
            #expect(push.priority == "5")
            #expect(push.body == "{}")
            #expect(push.keyID == DevelopmentKeys.shared.chain.apnsKeyID)
            #expect(push.teamID == APNSHarness.teamID)
        }
        #expect(Set(received.map(\.clientPort)).count == 1, "one connection carries every stream")
        let pushes = try await harness.pushes()
        #expect(pushes.map(\.status) == [.delivered, .delivered, .delivered])
        #expect(try await harness.worker().sendDue() == 0)
    }

    @Test func aBatchLargerThanTheStreamLimitIsAnsweredInOrderOverOneConnection() async throws {
        let harness = try await APNSHarness(streams: 4)
        defer { Task { await harness.stop() } }
        let tokens = (0..<50).map { String(format: "%04x", $0) }
        harness.apns.set(.fail(status: 410, reason: .unregistered, times: 1), for: tokens[37])
        let token = try harness.route.providerToken!.current()
        let responses = await harness.transport.send(
            tokens.map {
                APNSRequest(topic: DevelopmentKeys.orderType, deviceToken: $0, providerToken: token)
            }
        )
        #expect(responses.count == 50)
        #expect(responses[37] == .answered(status: 410, reason: .unregistered))
        #expect(responses.enumerated().filter { $0.offset != 37 }.allSatisfy { $0.element.status == 200 })
        #expect(Set(harness.apns.received.map(\.deviceToken)) == Set(tokens))
        #expect(Set(harness.apns.received.map(\.clientPort)).count == 1)
    }

    /// libcurl 7.88 resets every finished stream whose answer has no body; a server that counts those resets as
    /// an attack drops the connection every few hundred pushes. The local APNs must keep every connection.
    @Test func aHundredThousandPushesAreAllAnswered200OverConnectionsNeverDropped() async throws {
        let connections = 2
        let harness = try await APNSHarness(connections: connections, streams: 100, recordsPushes: false)
        defer { Task { await harness.stop() } }
        let token = try harness.route.providerToken!.current()
        let batch = 10_000
        var answered = 0
        var notOK: [APNSResponse] = []
        for start in stride(from: 0, to: 100_000, by: batch) {
            let responses = await harness.transport.send(
                (start..<start + batch).map {
                    APNSRequest(topic: DevelopmentKeys.orderType, deviceToken: String(format: "%064x", $0), providerToken: token)
                }
            )
            answered += responses.count
            notOK += responses.filter { $0.status != 200 }
        }
        #expect(answered == 100_000)
        #expect(notOK.isEmpty, "\(notOK.count) not 200, first: \(String(describing: notOK.first))")
        #expect(harness.apns.connectionErrors.isEmpty, "\(harness.apns.connectionErrors.prefix(3))")
        #expect(harness.apns.connectionsAccepted <= connections, "a dropped connection is replaced by a new one")
        #expect(harness.apns.providerTokensVerified == 1, "one signature check for one token")
    }

    /// The local APNs hands a push it accepted to whoever owns the token, as APNs delivers to a device; a push it
    /// refused goes nowhere.
    @Test func anAcceptedPushReachesTheDeliveriesOfItsTokenAndARefusedOneReachesNone() async throws {
        let harness = try await APNSHarness()
        defer { Task { await harness.stop() } }
        let mine = harness.apns.deliveries(for: "AA01")
        let theirs = harness.apns.deliveries(for: "bb02")
        harness.apns.set(.fail(status: 410, reason: .unregistered, times: 1), for: "bb02")
        let token = try harness.route.providerToken!.current()
        let push = { (deviceToken: String) in
            APNSRequest(topic: DevelopmentKeys.orderType, deviceToken: deviceToken, providerToken: token)
        }
        let responses = await harness.transport.send([push("aa01"), push("bb02"), push("aa01")])
        #expect(responses.map(\.status) == [200, 410, 200])
        #expect(await harness.transport.send([push("bb02")]).map(\.status) == [200])

        var mineReceived: [LocalAPNS.ReceivedPush] = []
        for await delivered in mine {
            mineReceived.append(delivered)
            if mineReceived.count == 2 { break }
        }
        #expect(mineReceived.map(\.deviceToken) == ["aa01", "aa01"])
        #expect(mineReceived.allSatisfy { $0.status == 200 && $0.topic == DevelopmentKeys.orderType })
        var theirsIterator = theirs.makeAsyncIterator()
        let first = await theirsIterator.next()
        #expect(first?.status == 200, "the 410 before it was not delivered")
        #expect(harness.apns.received.count == 4, "onPush and the record still see every push")
    }

    @Test func errorAnswersWithABodyKeepTheConnectionToo() async throws {
        let harness = try await APNSHarness(streams: 100)
        defer { Task { await harness.stop() } }
        let tokens = (0..<300).map { String(format: "%04x", $0) }
        for token in tokens { harness.apns.set(.fail(status: 410, reason: .unregistered, times: 1), for: token) }
        let token = try harness.route.providerToken!.current()
        let responses = await harness.transport.send(
            tokens.map {
                APNSRequest(topic: DevelopmentKeys.orderType, deviceToken: $0, providerToken: token)
            }
        )
        #expect(responses.allSatisfy { $0 == .answered(status: 410, reason: .unregistered) })
        #expect(harness.apns.connectionErrors.isEmpty)
        #expect(harness.apns.connectionsAccepted == 1)
    }

    @Test(arguments: StoreEngine.allCases)
    func unregisteredAndBadTokensLoseTheirRegistrations(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: devices)
        harness.apns.set(.fail(status: 410, reason: .unregistered, times: 1), for: "aa01")
        harness.apns.set(.fail(status: 400, reason: .badDeviceToken, times: 1), for: "bb02")
        _ = try await harness.update(order, status: "completed")
        try await harness.worker().sendDue()

        let remaining = try await harness.store.registrations(
            RegistrationFilter(type: order.orderTypeIdentifier, id: order.orderIdentifier),
            limit: 10
        )
        #expect(remaining.map(\.deviceIdentifier) == ["d3"])
        let pushes = try await harness.pushes()
        #expect(
            Set(pushes.map { "\($0.deviceIdentifier) \($0.status) \($0.lastError ?? "")" })
                == ["d1 failed Unregistered", "d2 failed BadDeviceToken", "d3 delivered "]
        )
    }

    @Test(arguments: StoreEngine.allCases)
    func tooManyRequestsThenSuccessEndsDelivered(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: ["d1": "aa01"])
        harness.apns.set(.fail(status: 429, reason: .tooManyRequests, times: 1), for: "aa01")
        harness.apns.set(nil, for: "zz")
        _ = try await harness.update(order, status: "completed")
        let worker = harness.worker(firstRetryDelay: 0)
        try await worker.sendDue()
        var push = try #require(try await harness.pushes().first)
        #expect(push.status == .pending)
        #expect(push.lastError == "TooManyRequests")
        try await worker.sendDue()
        push = try #require(try await harness.pushes().first)
        #expect(push.status == .delivered)
        #expect(push.attempts == 2)
        #expect(harness.apns.received.map(\.status) == [429, 200])
    }

    @Test(arguments: StoreEngine.allCases)
    func serverErrorsBackOffAndGiveUpAfterTheLimit(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: ["d1": "aa01"])
        harness.apns.set(.fail(status: 503, reason: .serviceUnavailable, times: 100), for: "aa01")
        _ = try await harness.update(order, status: "completed")
        let worker = harness.worker(firstRetryDelay: 0)
        for _ in 0..<PushLane.maxAttempts { try await worker.sendDue() }
        let push = try #require(try await harness.pushes().first)
        #expect(push.status == .failed)
        #expect(push.lastError == "gave up after 8 attempts: ServiceUnavailable")
        #expect(harness.apns.received.count == PushLane.maxAttempts)
        // With a real first delay, the next attempt is pushed into the future.
        let slow = harness.worker(firstRetryDelay: 60)
        let delay = slow.lane.backoff(attempt: 3)
        #expect(delay >= 120 && delay <= 240)
    }

    @Test(arguments: StoreEngine.allCases)
    func pushesLeftPendingOrInFlightAreSentAfterARestart(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: ["d1": "aa01", "d2": "bb02"])
        _ = try await harness.update(order, status: "completed")
        // An instance that claimed a push and died before sending it: its lease has run out.
        let claimed = try await harness.store.claimDuePushes(
            types: [DevelopmentKeys.orderType],
            limit: 1,
            claim: OutboxClaim(owner: "dead-instance", lease: -1)
        )
        #expect(claimed.count == 1)

        let worker = harness.worker()
        let running = Task { await worker.run() }
        _ = await eventually { harness.apns.received.count >= 2 }
        running.cancel()
        await running.value
        #expect(Set(harness.apns.received.map(\.deviceToken)) == ["aa01", "bb02"])
        #expect(try await harness.pushes().map(\.status) == [.delivered, .delivered])
    }

    @Test(arguments: StoreEngine.allCases)
    func anAPNsThatRefusesConnectionsSpendsNoAttemptAndGetsEveryPushOnceWhenItReturns(engine: StoreEngine) async throws {
        let harness = try await APNSHarness(engine)
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: ["d1": "aa01", "d2": "aa02"])
        #expect(try await harness.update(order, status: "completed") == 2)
        #expect(try await harness.update(order, status: "open") == 2, "a second update while pending adds no push")

        // Nothing listens on this port: every connection is refused.
        let refused = CurlPushTransport(
            endpoint: APNSEndpoint(.custom(url: "https://127.0.0.1:\(try freePort())"), caFile: nil),
            connections: 1,
            streamsPerConnection: 100
        )
        var logger = Logger(label: "push")
        logger.logLevel = .critical
        let down = PushWorker(
            store: harness.store,
            routes: [DevelopmentKeys.orderType: PushRoute(transport: refused, providerToken: harness.route.providerToken)],
            logger: logger,
            firstRetryDelay: 0
        )
        // Before, each round spent an attempt (with no delay between them here), and the eighth failed the pushes.
        do {
            for _ in 0..<PushLane.maxAttempts + 2 { try await down.sendDue() }
        } catch {
            await refused.shutdown()
            throw error
        }
        await refused.shutdown()
        let waiting = try await harness.pushes()
        #expect(waiting.count == 2)
        #expect(waiting.allSatisfy { $0.status == .pending && $0.attempts == 0 }, "\(waiting)")

        // APNs is back: each device gets its push once.
        #expect(try await harness.worker().sendDue() == 2)
        #expect(harness.apns.received.map(\.deviceToken).sorted() == ["aa01", "aa02"])
        #expect(try await harness.pushes().allSatisfy { $0.status == .delivered })
    }

    @Test func theLibcurlHereSpeaksHTTP2() throws {
        try CurlPushTransport.checkHTTP2Support()
    }

    @Test func theLocalAPNSChecksEachProviderTokenSignatureOnceAndItsAgeOnEveryPush() async throws {
        let clock = TestClock()
        let harness = try await APNSHarness(apnsNow: { clock.now })
        defer { Task { await harness.stop() } }
        let provider = try ProviderToken(
            key: DevelopmentKeys.shared.chain.apnsKey,
            keyID: DevelopmentKeys.shared.chain.apnsKeyID,
            teamID: APNSHarness.teamID,
            now: { clock.now }
        )
        let request = APNSRequest(topic: DevelopmentKeys.orderType, deviceToken: "aa01", providerToken: try provider.current())
        #expect(await harness.transport.send([request, request, request]).map(\.status) == [200, 200, 200])
        clock.advance(3_601)
        #expect(await harness.transport.send([request]) == [.answered(status: 403, reason: .expiredProviderToken)])
        let forged = APNSRequest(topic: request.topic, deviceToken: "aa01", providerToken: request.providerToken! + "A")
        #expect(await harness.transport.send([forged, forged]).map(\.reason) == [.invalidProviderToken, .invalidProviderToken])
        #expect(harness.apns.providerTokensVerified == 2, "one check for the token, one for the forged one")
    }

    @Test func theProviderTokenChecksOutWithOpenSSL() async throws {
        let keys = DevelopmentKeys.shared
        let token = try ProviderToken(key: keys.chain.apnsKey, keyID: keys.chain.apnsKeyID, teamID: "TEAM123456").current()
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONValue.parse(try #require(Base64URL.decode(parts[0])))
        let claims = try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
        #expect(header == .object(["alg": .string("ES256"), "kid": .string(keys.chain.apnsKeyID)]))
        #expect(claims["iss"] == .string("TEAM123456"))
        #expect(abs(Double(try #require(claims["iat"]?.intValue)) - Date().timeIntervalSince1970) < 5)

        // openssl checks the signature over "header.claims", after the raw r‖s is written as DER by hand.
        let raw = try #require(Base64URL.decode(parts[2]))
        func integer(_ bytes: Data) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let der = integer(raw.prefix(32)) + integer(raw.suffix(32))
        let folder = try TemporaryDirectory("jwt")
        try folder.write("signature.der", Data([0x30, UInt8(der.count)] + der))
        try folder.write("input", Data("\(parts[0]).\(parts[1])".utf8))
        let verified = try await Command.run(
            "openssl",
            [
                "dgst", "-sha256", "-verify", keys.folder.path("apns-public.pem"),
                "-signature", folder.path("signature.der"), folder.path("input"),
            ]
        )
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        #expect(verified.output.contains("Verified OK"))
    }

    @Test func theProviderTokenIsReusedAndRenewedWithinAppleLimits() throws {
        let clock = TestClock()
        let provider = try ProviderToken(
            key: DevelopmentKeys.shared.chain.apnsKey,
            keyID: "KEY1234567",
            teamID: "TEAM",
            now: { clock.now }
        )
        let first = try provider.current()
        clock.advance(49 * 60)
        #expect(try provider.current() == first)
        #expect(try provider.renew(afterRejecting: first) == true)
        let second = try provider.current()
        #expect(second != first)
        clock.advance(10 * 60)
        #expect(try provider.renew(afterRejecting: second) == false, "never renewed within 20 minutes")
        #expect(try provider.current() == second)
        clock.advance(41 * 60)
        #expect(try provider.current() != second, "renewed at 50 minutes")
    }

    @Test(arguments: StoreEngine.allCases)
    func anExpiredTokenIsRenewedOnceAndRetried(engine: StoreEngine) async throws {
        // The local APNs runs two hours ahead, so every token it sees is expired: one renewal, then a failure.
        let harness = try await APNSHarness(engine, apnsNow: { Date().addingTimeInterval(7_200) })
        defer { Task { await harness.stop() } }
        let order = try await harness.order(devices: ["d1": "aa01"])
        _ = try await harness.update(order, status: "completed")
        try await harness.worker().sendDue()
        let push = try #require(try await harness.pushes().first)
        #expect(push.lastError == "ExpiredProviderToken")
        #expect(push.status == .failed, "a token younger than 20 minutes is not renewed, so retrying cannot help")
        #expect(harness.apns.received.map(\.reason) == [.expiredProviderToken])
    }
}

final class TestClock: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var current = Date(timeIntervalSince1970: 1_795_342_530)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
