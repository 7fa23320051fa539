import Foundation
import WalletOrdersStore

/// One kind of work an outbox holds (pushes, webhook deliveries), as `OutboxWorker` drives it: what to claim, how
/// to send it, what the answers mean, and the store's operations on that outbox. The worker owns the rest: the
/// claim window, leases and their renewal, taking back a dead worker's claims, hand-back on stop, recording
/// outcomes until the store takes them, waking on the store's events, and pruning what is finished.
public protocol OutboxLane: Sendable {
    /// A unit of work taken from the outbox.
    associatedtype Job: Sendable
    /// What sending one batch came to: every job's outcome, and whatever else the lane reports.
    associatedtype Round: Sendable

    /// What the lane sends, for logs: "pushes", "webhook deliveries".
    var name: String { get }
    /// The clock claims and retries are read from: the store's.
    var clock: StoreClock { get }
    /// How many jobs one round claims at most.
    var batchSize: Int { get }
    /// How long a claim holds unless renewed.
    var lease: TimeInterval { get }
    /// How long finished work is kept for people to look at.
    var retention: TimeInterval { get }

    /// Whether `event` says that work may be waiting.
    func wakes(on event: StoreEvent) -> Bool
    /// Claims up to `limit` jobs that are due, for `claim`: as many as the lane wants sent now (none while its
    /// destination is known to be out of reach).
    func claim(_ claim: OutboxClaim, limit: Int) async throws -> [Job]
    /// Sends `jobs` and decides what became of each.
    func send(_ jobs: [Job]) async -> Round
    /// Records `round`'s outcomes in the outbox, for `owner`, in one transaction.
    func record(_ round: Round, owner: String) async throws
    /// Hears `round` once it is recorded (metrics, logs).
    func recorded(_ round: Round)
    /// When the next job may be claimed: the next one due, or the lane's own wait (its destination's pause) when
    /// that ends sooner; nil when nothing is pending.
    func nextDue() async throws -> Date?

    /// Extends the lease of every job `owner` holds; answers how many.
    func renewClaims(owner: String, lease: TimeInterval) async throws -> Int
    /// Puts the jobs `owner` holds back in the outbox; answers how many.
    func releaseClaims(owner: String) async throws -> Int
    /// Puts the jobs whose lease ran out (their worker died) back in the outbox; answers how many.
    func reclaimExpiredClaims() async throws -> Int
    /// Deletes finished work last touched more than `age` seconds ago; answers how many.
    func prune(olderThan age: TimeInterval) async throws -> Int
    /// Stops what the lane sends through, once its worker has stopped for good.
    func shutdown() async
}
