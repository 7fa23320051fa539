import Foundation

/// The push outbox: one row per push a device is owed, claimed under a lease by the instance that sends it.
public protocol PushOutboxStorage: Sendable {
    /// Claims up to `limit` due pending pushes of the order `types` for `claim`, oldest first: they become
    /// `sending`, held by the claim's owner until its lease ends. Two instances never claim the same push.
    func claimDuePushes(types: [String], limit: Int, claim: PushClaim, now: Date) async throws -> [PushJob]
    /// Extends the lease of every push `owner` holds; answers how many it holds.
    @discardableResult
    func renewClaims(owner: String, until: Date) async throws -> Int
    /// Puts the pushes `owner` holds back in the queue (a graceful stop); answers how many.
    @discardableResult
    func releaseClaims(owner: String) async throws -> Int
    /// Puts pushes whose lease ended (their instance died) back in the queue; answers how many.
    @discardableResult
    func reclaimExpiredClaims(now: Date) async throws -> Int
    /// Records what became of pushes `owner` sent, in one transaction. A push whose claim `owner` no longer
    /// holds (it was reclaimed) is left to whoever holds it now.
    func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String, now: Date) async throws
    /// When the next pending push of the order `types` is due, or nil when none is pending.
    func nextPushDue(types: [String]) async throws -> Date?
    /// Outbox rows newest first, filtered, one page.
    func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord>
    /// How many pushes the outbox holds in each status.
    func pushCounts() async throws -> PushCounts
    /// Deletes delivered and failed pushes last touched before `date`; answers how many.
    func prunePushes(finishedBefore date: Date) async throws -> Int
}
