import Foundation
import Logging
import Synchronization
import WalletOrdersAPNS
import WalletOrdersStore

/// Sends what the outbox holds and records each outcome. The outbox is the source of truth: pushes survive
/// restarts, and any number of instances can run a worker on one database.
///
/// A worker claims due pushes under a lease that it renews while it lives. When an instance dies, its claims
/// run out and any worker puts them back in the queue; a live instance's claims are never taken. Workers wake
/// when the store says pushes were queued (by this instance or, with PostgreSQL, any other), when the next
/// retry falls due, and at least every `idleWait` in case a change went unannounced.
///
/// When no push of a round got an answer (APNs refuses connections or cannot be reached), those pushes go back to
/// the outbox with their attempt not counted, and the worker claims nothing more for that order type until a pause
/// of 0.5 s, 1 s, 2 s… up to `longestUnreachablePause` has passed; then it tries one push. An outage of an hour uses
/// up no push's attempts and next to no CPU, and the outbox drains at the full rate within that pause of APNs' return.
public final class PushWorker: Sendable {
    /// How many pushes one round takes from the outbox.
    public static let batchSize = 500
    /// Rounds under way at once: while one round's pushes travel, the next is claimed and the last recorded, so
    /// neither the database nor the connections wait for the other.
    public static let roundsInFlight = 4
    /// Attempts before a push is marked failed.
    public static let maxAttempts = 8
    /// How long a claim holds unless renewed.
    public static let lease: Duration = .seconds(30)
    /// How often a worker renews its claims and looks for claims whose lease ran out.
    public static let heartbeat: Duration = .seconds(10)
    /// The longest wait between tries of an APNs that could not be reached.
    public static let longestUnreachablePause: Duration = .seconds(10)
    /// Delivered and failed pushes are kept this long for admins, then deleted.
    public static let retention: TimeInterval = 7 * 86_400

    /// This worker's name in the claims it makes: unique per process.
    public let owner: String
    private let store: any PushOutboxStorage & StoreLifecycle
    private let routes: [String: PushRoute]
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let idleWait: Duration
    private let firstRetryDelay: TimeInterval
    private let onRound: @Sendable (PushRound) -> Void
    private let signal = WakeSignal()
    /// Order types whose APNs could not be reached, with when to try again.
    private let unreachable = Mutex<[String: Unreachable]>([:])

    private struct Unreachable {
        var pause = RetryPause(longest: PushWorker.longestUnreachablePause)
        var until = ContinuousClock.now
    }

    /// A worker for the order types in `routes` (order type identifier → route). `firstRetryDelay` doubles with
    /// each attempt, with jitter, up to ten minutes. `onRound` hears what each round came to once its outcomes are
    /// recorded (for metrics).
    public init(
        store: any PushOutboxStorage & StoreLifecycle,
        routes: [String: PushRoute],
        logger: Logger,
        idleWait: Duration = .seconds(10),
        firstRetryDelay: TimeInterval = 2,
        now: @escaping @Sendable () -> Date = Date.init,
        onRound: @escaping @Sendable (PushRound) -> Void = { _ in }
    ) {
        self.store = store
        self.routes = routes
        self.logger = logger
        self.idleWait = idleWait
        self.firstRetryDelay = firstRetryDelay
        self.now = now
        self.onRound = onRound
        owner = PushClaim.newOwner()
    }

    /// Tells the worker that new pushes may be waiting, so it need not wait for its next look.
    public func wake() {
        signal.wake()
    }

    /// Sends until the task is cancelled; then hands back the pushes it still holds.
    public func run() async {
        let events = store.events()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [signal] in
                for await event in events where event == .pushesQueued || event == .resync { signal.wake() }
            }
            group.addTask { await self.keepClaims() }
            await sendUntilCancelled()
            group.cancelAll()
        }
        // A round in progress has finished and recorded its outcomes; anything still held (a round whose
        // outcomes could not be recorded) goes back to the outbox now rather than when its lease runs out. This
        // task is cancelled by now (that is how the worker is stopped), and the stores give up at once on a
        // cancelled task (GRDB throws CancellationError before it writes): the hand-back runs in a task of its own.
        let (store, owner) = (store, owner)
        do {
            let released = try await Task { try await store.releaseClaims(owner: owner) }.value
            if released > 0 { logger.info("handed back pushes on stopping", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error(
                "cannot hand back pushes on stopping; they return when their lease ends",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Shuts down the transports of the worker's routes, once it has stopped for good (by whoever made them).
    public func shutdownTransports() async {
        for route in routes.values { await route.transport.shutdown() }
    }

    private func sendUntilCancelled() async {
        await withTaskGroup(of: Void.self) { rounds in
            var inFlight = 0
            var claims = RetryPause()
            while !Task.isCancelled {
                if inFlight == Self.roundsInFlight {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                var jobs: [PushJob] = []
                var pause: Duration?
                do {
                    jobs = try await claimRound()
                    claims.succeeded()
                } catch {
                    pause = claims.failed()
                    logger.error("cannot claim pushes", metadata: ["error": "\(error)", "retry_in": "\(pause ?? .zero)"])
                }
                if !jobs.isEmpty {
                    inFlight += 1
                    rounds.addTask {
                        do {
                            try await self.deliver(jobs)
                        } catch {
                            // Stopped before the outcomes could be recorded: the claims are handed back on stopping.
                            self.logger.error("cannot record push outcomes", metadata: ["error": "\(error)"])
                        }
                    }
                    continue
                }
                // Nothing due now: let a round under way finish first, since a retry it records may be due at once.
                if inFlight > 0 {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                var wait = idleWait
                if let pause {
                    // The store refuses writes (its disk full, its server restarting): a due push must not make
                    // this ask again at once.
                    wait = min(wait, pause)
                }
                let (types, unreachableUntil) = reachableTypes()
                if let unreachableUntil { wait = min(wait, max(unreachableUntil - .now, .milliseconds(50))) }
                if pause != nil || types.isEmpty {
                    // Waiting for the store, or for APNs: nothing to ask the store meanwhile.
                } else if let due = try? await store.nextPushDue(types: types) {
                    // At least a little: a push due now that could not be claimed must not make this spin.
                    let milliseconds = Int64(min(max(due.timeIntervalSince(now()), 0.05), 3_600) * 1_000)
                    wait = min(wait, .milliseconds(milliseconds))
                }
                await signal.wait(timeout: wait)
            }
        }
    }

    /// Renews this worker's claims, and puts back the claims of workers that stopped renewing theirs.
    private func keepClaims() async {
        var lastPrune = Date.distantPast
        while !Task.isCancelled {
            do {
                let now = now()
                try await store.renewClaims(owner: owner, until: now.addingTimeInterval(Self.seconds(Self.lease)))
                let reclaimed = try await store.reclaimExpiredClaims(now: now)
                if reclaimed > 0 {
                    logger.notice(
                        "took back pushes whose instance stopped renewing its claim",
                        metadata: ["count": "\(reclaimed)"]
                    )
                    signal.wake()
                }
                if now.timeIntervalSince(lastPrune) > 3_600 {
                    lastPrune = now
                    let pruned = try await store.prunePushes(finishedBefore: now.addingTimeInterval(-Self.retention))
                    if pruned > 0 { logger.info("deleted old finished pushes", metadata: ["count": "\(pruned)"]) }
                }
            } catch {
                logger.error("cannot renew push claims", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: Self.heartbeat)
        }
    }

    /// Sends one round of due pushes and records the outcomes (asking again while the store refuses the write);
    /// returns how many were sent.
    @discardableResult
    public func sendDue() async throws -> Int {
        let jobs = try await claimRound()
        try await deliver(jobs)
        return jobs.count
    }

    /// Claims up to `batchSize` due pushes under a fresh lease, of the order types whose APNs is not being waited for,
    /// and one push of each whose pause is over, to try it.
    private func claimRound() async throws -> [PushJob] {
        let (reachable, trying) = typesToClaim()
        let start = now()
        let claim = PushClaim(owner: owner, leaseUntil: start.addingTimeInterval(Self.seconds(Self.lease)))
        var jobs: [PushJob] = []
        if !reachable.isEmpty {
            jobs = try await store.claimDuePushes(types: reachable, limit: Self.batchSize, claim: claim, now: start)
        }
        for type in trying {
            let tried = try await store.claimDuePushes(types: [type], limit: 1, claim: claim, now: start)
            // Nothing due to try it with: the next push queued goes out with the others.
            if tried.isEmpty { noteReach(true, type: type, reason: "") }
            jobs += tried
        }
        return jobs
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
                waiting[type]?.until = now + Self.lease
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

    /// Sends claimed pushes, grouped by order type, and records every outcome in one write.
    private func deliver(_ jobs: [PushJob]) async throws {
        guard !jobs.isEmpty else { return }
        var outcomes: [(PushJob, PushOutcome)] = []
        var round = PushRound()
        for (type, group) in Dictionary(grouping: jobs, by: \.orderTypeIdentifier) {
            guard let route = routes[type] else { continue }
            let token: String?
            do {
                token = try route.providerToken?.current()
            } catch {
                outcomes += group.map { ($0, .failed(reason: "cannot sign the provider token: \(error)")) }
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
                outcomes += group.map { ($0, .unsent(reason: responses.first?.description ?? "APNs did not answer")) }
                continue
            }
            for (job, response) in zip(group, responses) {
                if let reason = response.reason, reason.refusesCredentials { round.refusedCredentials.append((type, reason)) }
                outcomes.append((job, outcome(of: response, for: job, route: route, token: token)))
            }
        }
        // Recorded in a task of its own: a worker stopped while the round was under way still records what it sent
        // (a store gives up at once on a cancelled task, and the pushes would go out again). A store that refuses
        // the write is asked again, with growing pauses, while the worker runs: the claims stay held meanwhile, and
        // left unrecorded they would stay held until the worker stops.
        let (store, owner, finished) = (store, owner, outcomes)
        var retries = RetryPause()
        while true {
            do {
                try await Task { try await store.finishPushes(finished, owner: owner, now: self.now()) }.value
                break
            } catch {
                guard !Task.isCancelled else { throw error }
                let pause = retries.failed()
                logger.error("cannot record push outcomes", metadata: ["error": "\(error)", "retry_in": "\(pause)"])
                try? await Task.sleep(for: pause)
            }
        }
        round.outcomes = outcomes.map(\.1)
        onRound(round)
        for (job, outcome) in outcomes {
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

    /// APNs' answer, turned into what the outbox should do.
    func outcome(of response: APNSResponse, for job: PushJob, route: PushRoute, token: String?) -> PushOutcome {
        let reason = response.description
        switch response {
        case .answered(200, _):
            return .delivered
        case .answered(410, _):
            return .tokenRejected(reason: reason)
        case .answered(400, let refusal?) where refusal.rejectsDeviceToken:
            return .tokenRejected(reason: reason)
        case .answered(403, .expiredProviderToken?):
            // Renew once and retry at once; a token too young to renew will not do better, so that fails.
            if let token, (try? route.providerToken?.renew(afterRejecting: token)) == true, job.attempts < Self.maxAttempts {
                return .retry(at: now(), reason: reason)
            }
            return .failed(reason: reason)
        case .answered(429, _), .answered(500, _), .answered(503, _), .notAnswered:
            guard job.attempts < Self.maxAttempts else {
                return .failed(reason: "gave up after \(job.attempts) attempts: \(reason)")
            }
            return .retry(at: now().addingTimeInterval(backoff(attempt: job.attempts)), reason: reason)
        default:
            return .failed(reason: reason)
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
