import Foundation
import Synchronization
import WalletOrdersAPNSServer

/// The kit's local APNs: it takes the server's pushes as APNs would, checking each, and keeps those for the kit's
/// push token with the moment each arrived.
final class PushWatch: Sendable {
    /// A push for the kit's token and when it arrived.
    struct Arrival: Sendable {
        let push: LocalAPNS.ReceivedPush
        let instant: ContinuousClock.Instant
        let time: Date
    }

    private struct State {
        var arrivals: [Arrival] = []
        var others = 0
    }

    /// The state the push handler and the run share.
    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    let apns: LocalAPNS
    private let listener: LocalAPNS.Listener
    private let storage: Storage

    /// Starts listening as `configuration` says, keeping the pushes for `token` (hex), and taking the TLS client
    /// certificate of a provider that authenticates with one.
    init(_ configuration: ConformanceConfiguration.APNS, token: String) async throws {
        let storage = Storage()
        let token = token.lowercased()
        let keys = configuration.publicKey.map { [configuration.keyID ?? "": $0] }
        apns = LocalAPNS(
            publicKeys: keys,
            teamID: configuration.teamID,
            // Every topic is taken, and judged by push.topic: a wrong one is then reported as such.
            topics: nil,
            recordsPushes: false,
            // As APNs: any JSON object is taken, and push.payload judges it, so the provider goes on as it would.
            acceptsAnyPayload: true,
            onPush: { push in
                let arrival = Arrival(push: push, instant: .now, time: Date())
                storage.state.withLock { state in
                    if push.deviceToken.lowercased() == token {
                        state.arrivals.append(arrival)
                    } else {
                        state.others += 1
                    }
                }
            }
        )
        self.storage = storage
        // A provider authenticating with a certificate sends its leaf alone: the kit judges it (push.authentication).
        listener = try await apns.listen(
            host: configuration.host,
            port: configuration.port,
            tls: configuration.identity.serverConfiguration(),
            takingClientCertificates: true
        )
    }

    /// The port it listens on.
    var port: Int { listener.port }

    /// The pushes for the kit's token that arrived after `instant`.
    func arrivals(after instant: ContinuousClock.Instant) -> [Arrival] {
        storage.state.withLock { $0.arrivals.filter { $0.instant > instant } }
    }

    /// How many pushes came for other tokens.
    var pushesForOtherTokens: Int { storage.state.withLock { $0.others } }

    /// The first push for the kit's token after `instant`, waiting up to `deadline` for it.
    func firstArrival(after instant: ContinuousClock.Instant, within deadline: Duration) async -> Arrival? {
        let end = ContinuousClock.now + deadline
        while true {
            if let arrival = arrivals(after: instant).first { return arrival }
            guard ContinuousClock.now < end, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops listening and closes every connection.
    func close() { listener.close() }
}
