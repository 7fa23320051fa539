import Foundation

/// A parcel one of an order's fulfillments follows: how tracking events find the orders they move, and how the
/// service notices a parcel that stalled.
public struct TrackedParcel: Sendable, Equatable {
    /// The fulfillment's `fulfillmentIdentifier`.
    public let fulfillmentIdentifier: String
    public let trackingNumber: String
    public let carrier: String?
    /// When the last tracking event applied to it happened; nil when none was, or, in a write, to keep what is
    /// stored while the tracking number stays the same.
    public let lastEventAt: Date?
    /// Whether its fulfillment was in transit (`FulfillmentView.isInTransit`) when the order was written; read back,
    /// nil for a parcel written before the store kept it.
    public let inTransit: Bool?
    /// In a write: whether the write is news of it, so that it is heard of now and a stall found before ends (see
    /// `OrderService.parcels`).
    public let isNews: Bool
    /// Read back only: when it was last heard of (given its tracking number, a carrier event applied, set off again).
    public let heardAt: Date?
    /// Read back only: when the service found it stalled, since it was last heard of.
    public let stalledAt: Date?

    public init(
        fulfillmentIdentifier: String,
        trackingNumber: String,
        carrier: String?,
        lastEventAt: Date? = nil,
        inTransit: Bool? = nil,
        isNews: Bool = false,
        heardAt: Date? = nil,
        stalledAt: Date? = nil
    ) {
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.trackingNumber = trackingNumber
        self.carrier = carrier
        self.lastEventAt = lastEventAt
        self.inTransit = inTransit
        self.isNews = isNews
        self.heardAt = heardAt
        self.stalledAt = stalledAt
    }
}

/// A parcel as the store finds it by its tracking number: which order's fulfillment follows it.
public struct TrackedFulfillment: Sendable, Equatable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let merchantID: Int64
    public let parcel: TrackedParcel

    public init(orderTypeIdentifier: String, orderIdentifier: String, merchantID: Int64, parcel: TrackedParcel) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.merchantID = merchantID
        self.parcel = parcel
    }
}

/// A tracking event as the store keeps it: who sent it (`merchant:<id>`, `partner:<id>`), its id there, the parcel
/// it is about, and the event itself, opaque to the store.
public struct TrackingEventRecord: Sendable, Equatable {
    public let source: String
    public let id: String
    public let trackingNumber: String
    public let body: Data

    public init(source: String, id: String, trackingNumber: String, body: Data) {
        self.source = source
        self.id = id
        self.trackingNumber = trackingNumber
        self.body = body
    }
}

/// What became of a tracking event. `received` events are being applied (or were, by an instance that stopped
/// before it said so); `pending` ones wait for an order to hold their tracking number.
public enum TrackingEventState: String, Sendable, CaseIterable {
    case received
    case applied
    case stale
    case pending
}
