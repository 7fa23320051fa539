import Foundation
import Logging
import WalletOrdersStore
import WalletOrdersWebhookModel

/// Sends what the webhook outbox holds and records each outcome. Like the push worker: the outbox is the source of
/// truth, deliveries survive restarts, and any number of instances can run a worker on one database.
///
/// A worker claims due deliveries under a lease that it renews while it lives; an instance that dies leaves its
/// claims to run out, and the next claim by any worker takes them again. An endpoint that does not answer 2xx is
/// tried again with exponential backoff and jitter for about three days (`retryDelays`); then the delivery fails
/// and the endpoint is disabled, with the reason, until its merchant enables it again.
public final class WebhookWorker: Sendable {
    /// The waits before each retry: 15 attempts over about three days.
    public static let retryDelays: [TimeInterval] = [
        5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200,
    ]
    /// How long a claim holds unless renewed.
    public static let lease: TimeInterval = 30
    /// How often a worker renews the claims it holds.
    public static let heartbeat: Duration = .seconds(10)
    /// How many deliveries one round takes from the outbox.
    public static let batchSize = 128
    /// Rounds under way at once: while one round's requests travel, the next is claimed and the last recorded.
    public static let roundsInFlight = 4
    /// Delivered and failed deliveries are kept this long for merchants to look at, then deleted.
    public static let retention: TimeInterval = 30 * 86_400

    /// This worker's name in the claims it makes: unique per process.
    public let owner: String
    private let store: any OrderStore
    private let transport: CurlWebhookTransport
    private let logger: Logger
    private let retryDelays: [TimeInterval]
    private let idleWait: Duration
    private let now: @Sendable () -> Date
    private let onOutcomes: @Sendable ([WebhookOutcome]) -> Void
    private let signal = WakeSignal()

    /// A worker sending through `transport`; `retryDelays` (by default `Self.retryDelays`) are the waits before
    /// each retry, with ±20% jitter. `onOutcomes` hears each round's outcomes once recorded (for metrics).
    public init(
        store: any OrderStore,
        transport: CurlWebhookTransport,
        logger: Logger,
        retryDelays: [TimeInterval] = WebhookWorker.retryDelays,
        idleWait: Duration = .seconds(10),
        now: @escaping @Sendable () -> Date = Date.init,
        onOutcomes: @escaping @Sendable ([WebhookOutcome]) -> Void = { _ in }
    ) {
        self.store = store
        self.transport = transport
        self.logger = logger
        self.retryDelays = retryDelays
        self.idleWait = idleWait
        self.now = now
        self.onOutcomes = onOutcomes
        owner = PushClaim.newOwner(role: "webhooks")
    }

    /// Tells the worker that deliveries may be waiting.
    public func wake() {
        signal.wake()
    }

    /// Sends until the task is cancelled; then hands back the deliveries it still holds.
    public func run() async {
        let events = store.events()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [signal] in
                for await event in events where event == .webhooksQueued || event == .resync { signal.wake() }
            }
            group.addTask { await self.keepClaims() }
            await sendUntilCancelled()
            group.cancelAll()
        }
        // Cancelled by now: the hand-back runs in a task of its own, as the push worker's does.
        let (store, owner) = (store, owner)
        do {
            let released = try await Task { try await store.releaseDeliveries(owner: owner) }.value
            if released > 0 { logger.info("handed back webhook deliveries on stopping", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error(
                "cannot hand back webhook deliveries on stopping; they return when their lease ends",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Shuts down the worker's transport, once it has stopped for good (by whoever made it).
    public func shutdownTransport() async {
        await transport.shutdown()
    }

    private func sendUntilCancelled() async {
        var lastPrune = Date.distantPast
        await withTaskGroup(of: Void.self) { rounds in
            var inFlight = 0
            var claims = RetryPause()
            while !Task.isCancelled {
                if inFlight == Self.roundsInFlight {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                var jobs: [WebhookJob] = []
                var pause: Duration?
                do {
                    let start = now()
                    let claim = PushClaim(owner: owner, leaseUntil: start.addingTimeInterval(Self.lease))
                    jobs = try await store.claimDueDeliveries(limit: Self.batchSize, claim: claim, now: start)
                    claims.succeeded()
                } catch {
                    pause = claims.failed()
                    if !Task.isCancelled {
                        logger.error(
                            "cannot claim webhook deliveries",
                            metadata: ["error": "\(error)", "retry_in": "\(pause ?? .zero)"]
                        )
                    }
                }
                if !jobs.isEmpty {
                    inFlight += 1
                    rounds.addTask { await self.deliver(jobs) }
                    continue
                }
                if inFlight > 0 {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                if now().timeIntervalSince(lastPrune) > 3_600 {
                    lastPrune = now()
                    let pruned = try? await store.pruneDeliveries(finishedBefore: now().addingTimeInterval(-Self.retention))
                    if let pruned, pruned > 0 {
                        logger.info("deleted old finished webhook deliveries", metadata: ["count": "\(pruned)"])
                    }
                }
                var wait = idleWait
                if let pause {
                    // The store refuses writes (its disk full, its server restarting): a due delivery must not make
                    // this ask again at once.
                    wait = min(wait, pause)
                } else if let due = try? await store.nextDeliveryDue() {
                    // At least a little: a delivery due now that could not be claimed must not make this spin.
                    let milliseconds = Int64(min(max(due.timeIntervalSince(now()), 0.05), 3_600) * 1_000)
                    wait = min(wait, .milliseconds(milliseconds))
                }
                await signal.wait(timeout: wait)
            }
        }
    }

    /// Renews this worker's claims while it sends: a round may wait behind others for the transport's threads.
    private func keepClaims() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.heartbeat)
            guard !Task.isCancelled else { return }
            do {
                try await store.renewDeliveryClaims(owner: owner, until: now().addingTimeInterval(Self.lease))
            } catch {
                logger.error("cannot renew webhook delivery claims", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Sends one round and records every outcome in one write.
    private func deliver(_ jobs: [WebhookJob]) async {
        let outcomes = await withTaskGroup(of: (Int, WebhookOutcome).self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask {
                    let answer = await self.transport.send(WebhookPayload.request(for: job, now: self.now()))
                    return (index, self.outcome(of: answer, for: job))
                }
            }
            var outcomes: [(Int, WebhookOutcome)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map { (jobs[$0.0], $0.1) }
        }
        // Recorded in a task of its own: a worker stopped while the round was under way still records what it sent
        // (a store gives up at once on a cancelled task, and the deliveries would go out again). A store that refuses
        // the write is asked again, with growing pauses, while the worker runs: this worker renews the claims
        // meanwhile, and left unrecorded they would stay held until it stops.
        let (store, owner) = (store, owner)
        var retries = RetryPause()
        while true {
            do {
                try await Task { try await store.finishDeliveries(outcomes, owner: owner, now: self.now()) }.value
                onOutcomes(outcomes.map(\.1))
                break
            } catch {
                // Stopped: the claims are handed back (or run out) and the deliveries go again; a merchant may see
                // one twice, never none.
                guard !Task.isCancelled else {
                    logger.error("cannot record webhook outcomes", metadata: ["error": "\(error)"])
                    break
                }
                let pause = retries.failed()
                logger.error("cannot record webhook outcomes", metadata: ["error": "\(error)", "retry_in": "\(pause)"])
                try? await Task.sleep(for: pause)
            }
        }
        for (job, outcome) in outcomes {
            if case .failed(_, _, let reason) = outcome {
                logger.warning(
                    "disabled a webhook endpoint whose deliveries kept failing",
                    metadata: ["endpoint": "\(job.delivery.endpointID)", "reason": "\(reason)"]
                )
            }
        }
    }

    /// What an answer means for the delivery: done, again later, or given up.
    func outcome(of answer: WebhookAnswer, for job: WebhookJob) -> WebhookOutcome {
        if let code = answer.statusCode, answer.isSuccess { return .delivered(statusCode: code) }
        let error = answer.error ?? "the endpoint answered \(answer.statusCode ?? 0)"
        let attempt = job.delivery.attempts
        guard attempt <= retryDelays.count else {
            return .failed(
                statusCode: answer.statusCode,
                error: error,
                reason: "\(attempt) attempts since \(job.delivery.occurredAt.formatted(.iso8601)) failed; the last: \(error)"
            )
        }
        let delay = retryDelays[attempt - 1] * Double.random(in: 0.8...1.2)
        return .retry(at: now().addingTimeInterval(delay), statusCode: answer.statusCode, error: error)
    }
}
