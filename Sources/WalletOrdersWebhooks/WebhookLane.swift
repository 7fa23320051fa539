import Foundation
import Logging
import WalletOrdersOutbox
import WalletOrdersStore
import WalletOrdersWebhookModel

/// Webhook deliveries as an outbox lane: sending each signed delivery through the transport, and when to give up.
/// An endpoint that does not answer 2xx is tried again with exponential backoff and jitter for about three days
/// (`retryDelays`); then the delivery fails and the endpoint is disabled, with the reason, until its merchant enables
/// it again. That decision is made here, once; the stores only record it.
public struct WebhookLane: OutboxLane {
    public typealias Round = [(WebhookJob, WebhookOutcome)]

    /// The waits before each retry: 15 attempts over about three days.
    public static let retryDelays: [TimeInterval] = [
        5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200,
    ]
    /// How many deliveries one round takes from the outbox.
    public static let batchSize = 128
    /// How long a claim holds unless renewed.
    public static let lease: TimeInterval = 30
    /// Delivered and failed deliveries are kept this long for merchants to look at, then deleted.
    public static let retention: TimeInterval = 30 * 86_400

    public let name = "webhook deliveries"
    public var batchSize: Int { Self.batchSize }
    public var lease: TimeInterval { Self.lease }
    public var retention: TimeInterval { Self.retention }
    public var clock: StoreClock { store.clock }

    private let store: any WebhookOutboxStorage & StoreLifecycle
    private let transport: CurlWebhookTransport
    private let logger: Logger
    private let retryDelays: [TimeInterval]
    private let onOutcomes: @Sendable ([WebhookOutcome]) -> Void

    /// A lane sending through `transport`; `retryDelays` (by default `Self.retryDelays`) are the waits before each
    /// retry, with ±20% jitter. `onOutcomes` hears each round's outcomes once recorded (for metrics).
    public init(
        store: any WebhookOutboxStorage & StoreLifecycle,
        transport: CurlWebhookTransport,
        logger: Logger,
        retryDelays: [TimeInterval] = WebhookLane.retryDelays,
        onOutcomes: @escaping @Sendable ([WebhookOutcome]) -> Void = { _ in }
    ) {
        self.store = store
        self.transport = transport
        self.logger = logger
        self.retryDelays = retryDelays
        self.onOutcomes = onOutcomes
    }

    public func wakes(on event: StoreEvent) -> Bool {
        event == .webhooksQueued || event == .resync
    }

    public func claim(_ claim: OutboxClaim, limit: Int) async throws -> [WebhookJob] {
        try await store.claimDueDeliveries(limit: limit, claim: claim)
    }

    /// Sends every delivery of the round at once (the transport bounds how many travel together).
    public func send(_ jobs: [WebhookJob]) async -> Round {
        await withTaskGroup(of: (Int, WebhookOutcome).self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask {
                    let answer = await transport.send(WebhookPayload.request(for: job, now: clock.now()))
                    return (index, outcome(of: answer, for: job))
                }
            }
            var outcomes: [(Int, WebhookOutcome)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map { (jobs[$0.0], $0.1) }
        }
    }

    public func record(_ round: Round, owner: String) async throws {
        try await store.finishDeliveries(round, owner: owner)
    }

    public func recorded(_ round: Round) {
        onOutcomes(round.map(\.1))
        for (job, outcome) in round {
            if case .failed(_, _, let reason) = outcome {
                logger.warning(
                    "disabled a webhook endpoint whose deliveries kept failing",
                    metadata: ["endpoint": "\(job.delivery.endpointID)", "reason": "\(reason)"]
                )
            }
        }
    }

    public func nextDue() async throws -> Date? {
        try await store.nextDeliveryDue()
    }

    public func renewClaims(owner: String, lease: TimeInterval) async throws -> Int {
        try await store.renewDeliveryClaims(owner: owner, lease: lease)
    }

    public func releaseClaims(owner: String) async throws -> Int {
        try await store.releaseDeliveryClaims(owner: owner)
    }

    public func reclaimExpiredClaims() async throws -> Int {
        try await store.reclaimExpiredDeliveryClaims()
    }

    public func prune(olderThan age: TimeInterval) async throws -> Int {
        try await store.pruneDeliveries(olderThan: age)
    }

    public func shutdown() async {
        await transport.shutdown()
    }

    /// What an answer means for the delivery: done, again later, or given up (which disables the endpoint).
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
        let delay = retryDelays[max(attempt, 1) - 1] * Double.random(in: 0.8...1.2)
        return .retry(after: delay, statusCode: answer.statusCode, error: error)
    }
}
