import Foundation

/// Something that changed in the store, for those who wait on it.
public enum StoreEvent: Sendable, Equatable {
    /// Pushes were queued: a worker should look at the outbox.
    case pushesQueued
    /// Webhook deliveries were queued: a webhook worker should look.
    case webhooksQueued
    /// A new version of an order was committed.
    case orderChanged(type: String, id: String, version: Int)
    /// A merchant, its template or its keys changed: whoever caches them reads them again.
    case merchantsChanged
    /// Events may have been lost before this one (a subscriber fell behind, or the store listened again after
    /// an interruption); from here on they are complete. Look again at everything. A subscription's first event
    /// is this one once the store's events are complete.
    case resync
    /// Events of other instances may be lost from here until the next `resync` (the store stopped listening).
    case interrupted
}
