import Foundation
import Logging
import Testing
import WalletOrdersAPNS
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersPush

/// What an answer, or its absence, makes of a push: decided once, in the lane.
@Suite(.timeLimit(.minutes(2))) struct PushOutcomeTests {
    static func job(attempts: Int) -> PushJob {
        PushJob(
            id: 1,
            orderTypeIdentifier: DevelopmentKeys.orderType,
            orderIdentifier: "o1",
            deviceIdentifier: "d1",
            pushToken: "aa01",
            attempts: attempts
        )
    }

    @Test func aPushWhoseConnectionWasLostIsSentAgainAtOnceThenBacksOff() async throws {
        let folder = try TemporaryDirectory("push-outcome")
        let (store, _) = try await TestStore.make(.sqlite, in: folder)
        let lane = PushLane(store: store, routes: [:], logger: Logger(label: "test"), firstRetryDelay: 2)
        // Never used to send here: the outcome of an answer is decided without the network.
        let transport = CurlPushTransport(endpoint: APNSEndpoint(.custom(url: "https://127.0.0.1:1"), caFile: nil), connections: 1)
        let route = PushRoute(transport: transport, providerToken: nil)
        let lost = APNSResponse.notAnswered("Failed sending data to the peer")
        // APNs closes connections (idle ones, GOAWAY): the push never reached it, and a new connection sends it now.
        #expect(lane.outcome(of: lost, for: Self.job(attempts: 1), route: route, token: nil) == .retry(after: 0, reason: lost.description))
        // Lost again: APNs may be going away; the schedule's pause, which grows.
        guard case .retry(let after, _) = lane.outcome(of: lost, for: Self.job(attempts: 2), route: route, token: nil) else {
            Issue.record("a second loss is retried later")
            return
        }
        #expect(after >= 2 && after <= 4, "the second attempt's pause: 2 s doubled, with jitter")
        // An answer that asks for patience is never sent again at once, on the first attempt either.
        guard case .retry(let wait, _) = lane.outcome(of: .answered(status: 503, reason: nil), for: Self.job(attempts: 1), route: route, token: nil)
        else {
            Issue.record("a 503 is retried")
            return
        }
        #expect(wait >= 1)
        await transport.shutdown()
        await store.close()
    }
}
