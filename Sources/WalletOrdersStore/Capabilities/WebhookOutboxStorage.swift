import Foundation

/// The webhook outbox: deliveries claimed under a lease by the instance that sends them.
public protocol WebhookOutboxStorage: Sendable {
    /// Claims up to `limit` deliveries for `claim`, oldest first: the due pending deliveries of enabled endpoints,
    /// counting those whose claim's lease ran out (their instance died). They become `sending`; two instances never
    /// claim the same delivery.
    func claimDueDeliveries(limit: Int, claim: PushClaim, now: Date) async throws -> [WebhookJob]
    /// Records what became of deliveries `owner` sent; a delivery it no longer holds is left alone. A `failed`
    /// outcome disables the endpoint with its reason.
    func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String, now: Date) async throws
    /// Extends the lease of every delivery `owner` holds; answers how many it holds.
    @discardableResult
    func renewDeliveryClaims(owner: String, until: Date) async throws -> Int
    /// Puts the deliveries `owner` holds back in the queue (a graceful stop); answers how many.
    @discardableResult
    func releaseDeliveries(owner: String) async throws -> Int
    /// When the next delivery is due (a pending one of an enabled endpoint, or a claim whose lease runs out).
    func nextDeliveryDue() async throws -> Date?
    /// Deletes delivered and failed deliveries last touched before `date`; answers how many.
    @discardableResult
    func pruneDeliveries(finishedBefore date: Date) async throws -> Int
}
