import Foundation

/// What carriers said about parcels: tracking events kept until they apply, and the parcels orders follow.
public protocol TrackingStorage: Sendable {
    /// The fulfillments that follow parcels with these tracking numbers, of orders of `merchantIDs`.
    func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment]
    /// The parcels an order's fulfillments follow.
    func trackedParcels(type: String, id: String) async throws -> [TrackedParcel]
    /// Parcels of `merchantID`'s orders that may be in transit (their last write said so, or was made before the
    /// store kept it), not found stalled since they were last heard of, and last heard of before `heardBefore`:
    /// those heard of longest ago first, at most `limit`. Found through an index of such parcels alone.
    func quietParcels(merchantID: Int64, heardBefore: Date, limit: Int) async throws -> [TrackedFulfillment]
    /// Marks `parcel` found stalled now, unless it was heard of at `heardBefore` or later (an event that came since
    /// keeps it watched) or its tracking number changed.
    func markStalled(_ parcel: TrackedFulfillment, heardBefore: Date) async throws
    /// Keeps events not kept yet, as `received`; answers for each event nil when it was new, or the state of the one
    /// kept before with its source and id (the first of two alike in `events` is the one kept).
    func receiveTrackingEvents(_ events: [TrackingEventRecord]) async throws -> [TrackingEventState?]
    /// Records what became of events.
    func settleTrackingEvents(_ settled: [(source: String, id: String, state: TrackingEventState)]) async throws
    /// Deletes events still `received`: those refused, which are not kept (sent again, they are new).
    func forgetTrackingEvents(_ events: [(source: String, id: String)]) async throws
    /// The events from `sources` about these tracking numbers that are `pending` or still `received`, oldest first;
    /// found by tracking number and sender, however many events the senders keep.
    func waitingTrackingEvents(trackingNumbers: [String], sources: [String]) async throws -> [TrackingEventRecord]
    /// How many events from `source` the store keeps `pending` or still `received`: what the bound on waiting
    /// events counts.
    func waitingTrackingEventCount(source: String) async throws -> Int
    /// Deletes events received more than `age` seconds ago; answers how many.
    @discardableResult
    func pruneTrackingEvents(olderThan age: TimeInterval) async throws -> Int
}
