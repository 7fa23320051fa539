import Foundation

/// What carriers said about parcels: tracking events kept until they apply, and the parcels orders follow.
public protocol TrackingStorage: Sendable {
    /// The fulfillments that follow parcels with these tracking numbers, of orders of `merchantIDs`.
    func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment]
    /// The parcels an order's fulfillments follow.
    func trackedParcels(type: String, id: String) async throws -> [TrackedParcel]
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
