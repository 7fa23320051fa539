import Foundation
import Logging
import WalletOrdersStore

/// How one order type's pushes travel: the transport, and the provider token when it uses token authentication.
public struct PushRoute: Sendable {
    public let transport: any PushTransport
    public let providerToken: ProviderToken?

    public init(transport: any PushTransport, providerToken: ProviderToken?) {
        self.transport = transport
        self.providerToken = providerToken
    }
}

/// Sends what the outbox holds and records each outcome: the outbox is the source of truth, so pushes survive
/// restarts, and a push that was in flight when the process stopped is sent again.
public final class PushWorker: Sendable {
    /// How many pushes one round takes from the outbox.
    public static let batchSize = 500
    /// Attempts before a push is marked failed.
    public static let maxAttempts = 8

    private let store: SQLiteStore
    private let routes: [String: PushRoute]
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let idleWait: Duration
    private let firstRetryDelay: TimeInterval
    private let onOutcomes: @Sendable ([PushOutcome]) -> Void
    private let lock = NSLock()
    nonisolated(unsafe) private var woken = false

    /// A worker for the order types in `routes` (order type identifier → route). `firstRetryDelay` doubles with
    /// each attempt, with jitter, up to ten minutes. `onOutcomes` hears what became of each round's pushes once
    /// they are recorded (for metrics).
    public init(
        store: SQLiteStore,
        routes: [String: PushRoute],
        logger: Logger,
        idleWait: Duration = .seconds(1),
        firstRetryDelay: TimeInterval = 2,
        now: @escaping @Sendable () -> Date = Date.init,
        onOutcomes: @escaping @Sendable ([PushOutcome]) -> Void = { _ in }
    ) {
        self.store = store
        self.routes = routes
        self.logger = logger
        self.idleWait = idleWait
        self.firstRetryDelay = firstRetryDelay
        self.now = now
        self.onOutcomes = onOutcomes
    }

    /// Tells the worker that new pushes may be waiting, so it need not wait for its next look.
    public func wake() {
        lock.withLock { woken = true }
    }

    private func takeWakeUp() -> Bool {
        lock.withLock {
            defer { woken = false }
            return woken
        }
    }

    /// Sends until the task is cancelled.
    public func run() async {
        do {
            let requeued = try await store.requeueInterruptedPushes()
            if requeued > 0 { logger.info("requeued pushes interrupted by a stop", metadata: ["count": "\(requeued)"]) }
        } catch {
            logger.error("cannot requeue interrupted pushes", metadata: ["error": "\(error)"])
        }
        while !Task.isCancelled {
            let sent: Int
            do {
                sent = try await sendDue()
            } catch {
                logger.error("cannot send pushes", metadata: ["error": "\(error)"])
                sent = 0
            }
            // Nothing due: look again after the idle wait, or within 20 ms of being woken.
            var waited = Duration.zero
            while sent == 0, waited < idleWait, !Task.isCancelled, !takeWakeUp() {
                try? await Task.sleep(for: .milliseconds(20))
                waited += .milliseconds(20)
            }
        }
        // Stopping: a round in progress has finished and recorded its outcomes; anything still marked as being
        // sent (a round whose outcomes could not be recorded) goes back to the outbox now rather than at the next start.
        _ = try? await store.requeueInterruptedPushes()
    }

    /// Sends one round of due pushes and records the outcomes; returns how many were sent.
    @discardableResult
    public func sendDue() async throws -> Int {
        let jobs = try await store.claimDuePushes(now: now(), limit: Self.batchSize, types: Array(routes.keys))
        guard !jobs.isEmpty else { return 0 }
        var outcomes: [(PushJob, PushOutcome)] = []
        for (type, group) in Dictionary(grouping: jobs, by: \.orderTypeIdentifier) {
            guard let route = routes[type] else { continue }
            let token: String?
            do {
                token = try route.providerToken?.current()
            } catch {
                outcomes += group.map { ($0, .failed(reason: "cannot sign the provider token: \(error)")) }
                continue
            }
            let requests = group.map { PushRequest(topic: type, deviceToken: $0.pushToken, providerToken: token) }
            let responses = await route.transport.send(requests)
            for (job, response) in zip(group, responses) {
                outcomes.append((job, outcome(of: response, for: job, route: route, token: token)))
            }
        }
        try await store.finishPushes(outcomes, now: now())
        onOutcomes(outcomes.map(\.1))
        for (job, outcome) in outcomes {
            if case .delivered = outcome { continue }
            logger.notice("push not delivered", metadata: [
                "order": "\(job.orderTypeIdentifier)/\(job.orderIdentifier)", "device": "\(job.deviceIdentifier)",
                "outcome": "\(outcome)",
            ])
        }
        return jobs.count
    }

    /// APNs' answer, turned into what the outbox should do.
    func outcome(of response: PushResponse, for job: PushJob, route: PushRoute, token: String?) -> PushOutcome {
        let reason = response.reason ?? (response.status == 0 ? "no answer" : "HTTP \(response.status)")
        switch (response.status, response.reason) {
        case (200, _):
            return .delivered
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .tokenRejected(reason: reason)
        case (403, "ExpiredProviderToken"):
            // Renew once and retry at once; a token too young to renew will not do better, so that fails.
            if let token, (try? route.providerToken?.renew(afterRejecting: token)) == true, job.attempts < Self.maxAttempts {
                return .retry(at: now(), reason: reason)
            }
            return .failed(reason: reason)
        case (429, _), (500, _), (503, _), (0, _):
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
}
