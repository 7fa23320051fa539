import Foundation

/// The webhook outbox: deliveries claimed under a lease by the worker that sends them, as the push outbox's pushes
/// are. Times are the store's clock's.
public protocol WebhookOutboxStorage: Sendable {
    /// Claims up to `limit` due pending deliveries of enabled endpoints for `claim`, oldest first: they become
    /// `sending` and count an attempt. Two workers never claim the same delivery.
    func claimDueDeliveries(limit: Int, claim: OutboxClaim) async throws -> [WebhookJob]
    /// Extends the lease of every delivery `owner` holds to `lease` from now; answers how many it holds.
    @discardableResult
    func renewDeliveryClaims(owner: String, lease: TimeInterval) async throws -> Int
    /// Puts the deliveries `owner` holds back in the queue (a graceful stop), their attempt not counted; answers how
    /// many.
    @discardableResult
    func releaseDeliveryClaims(owner: String) async throws -> Int
    /// Puts deliveries whose lease ended (their worker died) back in the queue; answers how many.
    @discardableResult
    func reclaimExpiredDeliveryClaims() async throws -> Int
    /// Records what became of deliveries `owner` sent; a delivery it no longer holds is left alone. A `failed`
    /// outcome disables the endpoint with its reason, and fails the endpoint's other pending deliveries.
    func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String) async throws
    /// When the next pending delivery of an enabled endpoint is due, or nil when none is pending.
    func nextDeliveryDue() async throws -> Date?
    /// Deletes delivered and failed deliveries last touched more than `age` seconds ago; answers how many.
    @discardableResult
    func pruneDeliveries(olderThan age: TimeInterval) async throws -> Int
}
