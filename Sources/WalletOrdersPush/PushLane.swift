import Foundation
import Logging
import Synchronization
import WalletOrdersAPNS
import WalletOrdersOutbox
import WalletOrdersStore

/// Pushes as an outbox lane: which order types to claim, sending through each order type's APNs route, and what
/// APNs' answers mean (retry with backoff, give up and tell the merchant, a dead token).
///
/// When no push of a round got an answer (APNs refuses connections or cannot be reached), those pushes go back to
/// the outbox with their attempt not counted, and the lane claims nothing more for that order type until a pause
/// of 0.5 s, 1 s, 2 s… up to `longestUnreachablePause` has passed; then it tries one push. An outage of an hour uses
/// up no push's attempts and next to no CPU, and the outbox drains at the full rate within that pause of APNs' return.
public final class PushLane: OutboxLane {
    /// How many pushes one round takes from the outbox.
    public static let batchSize = 500
    /// Attempts before a push is marked failed.
    public static let maxAttempts = 8
    /// How long a claim holds unless renewed.
    public static let lease: TimeInterval = 30
    /// The longest wait between tries of an APNs that could not be reached.
    public static let longestUnreachablePause: Duration = .seconds(10)
    /// Delivered and failed pushes are kept this long for admins, then deleted.
    public static let retention: TimeInterval = 7 * 86_400

    public let name = "pushes"
    public var batchSize: Int { Self.batchSize }
    public var lease: TimeInterval { Self.lease }
    public var retention: TimeInterval { Self.retention }
    public var clock: StoreClock { store.clock }

    private let store: any PushOutboxStorage & StoreLifecycle
    private let routes: [String: PushRoute]
    private let logger: Logger
    private let firstRetryDelay: TimeInterval
    private let onRound: @Sendable (PushRound) -> Void
    /// Order types whose APNs could not be reached, with when to try again.
    private let unreachable = Mutex<[String: Unreachable]>([:])

    private struct Unreachable {
        var pause = RetryPause(longest: PushLane.longestUnreachablePause)
        var until = ContinuousClock.now
    }

    /// A lane for the order types in `routes` (order type identifier → route). `firstRetryDelay` doubles with each
    /// attempt, with jitter, up to ten minutes. `onRound` hears what each round came to once its outcomes are
    /// recorded (for metrics).
    public init(
        store: any PushOutboxStorage & StoreLifecycle,
        routes: [String: PushRoute],
        logger: Logger,
        firstRetryDelay: TimeInterval = 2,
        onRound: @escaping @Sendable (PushRound) -> Void = { _ in }
    ) {
        self.store = store
        self.routes = routes
        self.logger = logger
        self.firstRetryDelay = firstRetryDelay
        self.onRound = onRound
    }

    public func wakes(on event: StoreEvent) -> Bool {
        event == .pushesQueued || event == .resync
    }

    /// Claims up to `limit` due pushes of the order types whose APNs is not being waited for, and one push of each
    /// whose pause is over, to try it.
    public func claim(_ claim: OutboxClaim, limit: Int) async throws -> [PushJob] {
        let (reachable, trying) = typesToClaim()
        var jobs: [PushJob] = []
        if !reachable.isEmpty {
            jobs = try await store.claimDuePushes(types: reachable, limit: limit, claim: claim)
        }
        for type in trying {
            let tried = try await store.claimDuePushes(types: [type], limit: 1, claim: claim)
            // Nothing due to try it with: the next push queued goes out with the others.
            if tried.isEmpty { noteReach(true, type: type, reason: "") }
            jobs += tried
        }
        return jobs
    }

    /// Sends claimed pushes, grouped by order type, each group at once on its route.
    public func send(_ jobs: [PushJob]) async -> PushRound {
        var round = PushRound()
        for (type, group) in Dictionary(grouping: jobs, by: \.orderTypeIdentifier) {
            guard let route = routes[type] else { continue }
            let token: String?
            do {
                token = try route.providerToken?.current()
            } catch {
                round.outcomes += group.map {
                    let reason = "cannot sign the provider token: \(error)"
                    return ($0, .failed(reason: reason, notice: .pushFailed(attempts: $0.attempts, reason: reason)))
                }
                continue
            }
            let requests = group.map { APNSRequest(topic: type, deviceToken: $0.pushToken, providerToken: token) }
            let sent = ContinuousClock.now
            let responses = await route.transport.send(requests)
            round.sendDurations.append(ContinuousClock.now - sent)
            // Not one answer: APNs is out of reach, which says nothing about these pushes.
            let reached = responses.contains { $0.status != nil }
            noteReach(reached, type: type, reason: responses.first?.description ?? "")
            guard reached else {
                round.outcomes += group.map { ($0, .unsent(reason: responses.first?.description ?? "APNs did not answer")) }
                continue
            }
            for (job, response) in zip(group, responses) {
                if let reason = response.reason, reason.refusesCredentials { round.refusedCredentials.append((type, reason)) }
                round.outcomes.append((job, outcome(of: response, for: job, route: route, token: token)))
            }
        }
        return round
    }

    public func record(_ round: PushRound, owner: String) async throws {
        try await store.finishPushes(round.outcomes, owner: owner)
    }

    public func recorded(_ round: PushRound) {
        onRound(round)
        for (job, outcome) in round.outcomes {
            if case .delivered = outcome { continue }
            if case .unsent = outcome { continue }
            logger.notice(
                "push not delivered",
                metadata: [
                    "order": "\(job.orderTypeIdentifier)/\(job.orderIdentifier)", "device": "\(job.deviceIdentifier)",
                    "outcome": "\(outcome)",
                ]
            )
        }
    }

    /// The next pending push of a reachable order type, or the next try of one that could not be reached, whichever
    /// comes first.
    public func nextDue() async throws -> Date? {
        let (types, nextTry) = reachableTypes()
        let retry = nextTry.map { clock.now().addingTimeInterval(Self.seconds($0 - .now)) }
        guard !types.isEmpty, let due = try await store.nextPushDue(types: types) else { return retry }
        return min(due, retry ?? due)
    }

    public func renewClaims(owner: String, lease: TimeInterval) async throws -> Int {
        try await store.renewPushClaims(owner: owner, lease: lease)
    }

    public func releaseClaims(owner: String) async throws -> Int {
        try await store.releasePushClaims(owner: owner)
    }

    public func reclaimExpiredClaims() async throws -> Int {
        try await store.reclaimExpiredPushClaims()
    }

    public func prune(olderThan age: TimeInterval) async throws -> Int {
        try await store.prunePushes(olderThan: age)
    }

    /// Shuts down the transports of the lane's routes.
    public func shutdown() async {
        for route in routes.values { await route.transport.shutdown() }
    }

    /// The order types to claim pushes of (APNs not being waited for), and those whose pause is over, each then
    /// marked as being tried so that one push at a time tries it.
    private func typesToClaim() -> (reachable: [String], trying: [String]) {
        unreachable.withLock { waiting in
            let now = ContinuousClock.now
            var reachable: [String] = []
            var trying: [String] = []
            for type in routes.keys.sorted() {
                guard let entry = waiting[type] else {
                    reachable.append(type)
                    continue
                }
                guard entry.until <= now else { continue }
                trying.append(type)
                // Until its outcome says more (a round takes far less than a lease).
                waiting[type]?.until = now + .seconds(Self.lease)
            }
            return (reachable, trying)
        }
    }

    /// The order types to claim pushes of now, and when the first of the others is to be tried again.
    private func reachableTypes() -> (types: [String], nextTry: ContinuousClock.Instant?) {
        let waiting = unreachable.withLock { $0 }
        let now = ContinuousClock.now
        let types = routes.keys.filter { type in waiting[type].map { $0.until <= now } ?? true }.sorted()
        return (types, waiting.values.map(\.until).filter { $0 > now }.min())
    }

    /// Notes whether APNs answered any push of a round of `type`: when none, the order type waits a growing pause.
    private func noteReach(_ reached: Bool, type: String, reason: String) {
        let (pause, recovered) = unreachable.withLock { state -> (Duration?, Bool) in
            guard !reached else { return (nil, state.removeValue(forKey: type) != nil) }
            var entry = state[type] ?? Unreachable()
            let pause = entry.pause.failed()
            entry.until = .now + pause
            state[type] = entry
            return (pause, false)
        }
        if let pause {
            logger.error(
                "APNs cannot be reached; its pushes wait in the outbox, their attempts not counted",
                metadata: ["order_type": "\(type)", "error": "\(reason)", "retry_in": "\(pause)"]
            )
        } else if recovered {
            logger.notice("APNs answers again", metadata: ["order_type": "\(type)"])
        }
    }

    /// APNs' answer, turned into what the outbox should do. A push given up tells the merchant (`push.failed`).
    func outcome(of response: APNSResponse, for job: PushJob, route: PushRoute, token: String?) -> PushOutcome {
        let reason = response.description
        let gaveUp = WebhookNotice.pushFailed(attempts: job.attempts, reason: reason)
        switch response {
        case .answered(200, _):
            return .delivered
        case .answered(410, _):
            return .tokenRejected(reason: reason, notice: gaveUp)
        case .answered(400, let refusal?) where refusal.rejectsDeviceToken:
            return .tokenRejected(reason: reason, notice: gaveUp)
        case .answered(403, .expiredProviderToken?):
            // Renew once and retry at once; a token too young to renew will not do better, so that fails.
            if let token, (try? route.providerToken?.renew(afterRejecting: token)) == true, job.attempts < Self.maxAttempts {
                return .retry(after: 0, reason: reason)
            }
            return .failed(reason: reason, notice: gaveUp)
        case .notAnswered where job.attempts == 1:
            // The connection was lost under the push (APNs closes idle connections and sends GOAWAY): it never
            // reached APNs, so it is sent again at once, on a new connection. A second loss backs off as below.
            return .retry(after: 0, reason: reason)
        case .answered(429, _), .answered(500, _), .answered(503, _), .notAnswered:
            guard job.attempts < Self.maxAttempts else {
                let reason = "gave up after \(job.attempts) attempts: \(reason)"
                return .failed(reason: reason, notice: .pushFailed(attempts: job.attempts, reason: reason))
            }
            return .retry(after: backoff(attempt: job.attempts), reason: reason)
        default:
            return .failed(reason: reason, notice: gaveUp)
        }
    }

    /// Exponential backoff with jitter: about `firstRetryDelay` × 2^(attempt − 1), at most ten minutes.
    public func backoff(attempt: Int) -> TimeInterval {
        let base = min(firstRetryDelay * pow(2, Double(max(attempt - 1, 0))), 600)
        return base * Double.random(in: 0.5...1.0)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
