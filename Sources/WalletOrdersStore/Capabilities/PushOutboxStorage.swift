import Foundation

/// The push outbox: one row per push a device is owed, claimed under a lease by the worker that sends it. Times
/// (when a push falls due, until when a claim holds) are the store's clock's.
public protocol PushOutboxStorage: Sendable {
    /// Claims up to `limit` due pending pushes of the order `types` for `claim`, oldest first: they become
    /// `sending`, held by the claim's owner until its lease ends. Two workers never claim the same push.
    func claimDuePushes(types: [String], limit: Int, claim: OutboxClaim) async throws -> [PushJob]
    /// Extends the lease of every push `owner` holds to `lease` from now; answers how many it holds.
    @discardableResult
    func renewPushClaims(owner: String, lease: TimeInterval) async throws -> Int
    /// Puts the pushes `owner` holds back in the queue (a graceful stop); answers how many.
    @discardableResult
    func releasePushClaims(owner: String) async throws -> Int
    /// Puts pushes whose lease ended (their worker died) back in the queue; answers how many.
    @discardableResult
    func reclaimExpiredPushClaims() async throws -> Int
    /// Records what became of pushes `owner` sent, in one transaction, with the webhook notices their outcomes
    /// carry. A push whose claim `owner` no longer holds (it was reclaimed) is left to whoever holds it now.
    func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String) async throws
    /// When the next pending push of the order `types` is due, or nil when none is pending.
    func nextPushDue(types: [String]) async throws -> Date?
    /// Outbox rows newest first, filtered, one page.
    func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord>
    /// How many pushes the outbox holds in each status.
    func pushCounts() async throws -> PushCounts
    /// Deletes delivered and failed pushes last touched more than `age` seconds ago; answers how many.
    func prunePushes(olderThan age: TimeInterval) async throws -> Int
}
