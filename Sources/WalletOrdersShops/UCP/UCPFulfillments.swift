import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// A UCP order's `fulfillment` (its append-only `events` and its `expectations`) as Wallet fulfillments: one per
/// tracking number, and one per expectation no tracked event covers yet. UCPWebhook+Order.swift has the tables.
struct UCPFulfillments {
    /// One event, read: its place in the log breaks ties between events of the same instant.
    private struct Event {
        var index: Int
        var occurredAt: Date
        var type: String
        var lineItems: Set<String>
        var trackingNumber: String?
        var trackingURL: String?
        var carrier: String?
        var description: String?
    }

    let views: [FulfillmentView]

    init(events: [[String: JSONValue]], expectations: [[String: JSONValue]], now: Date) {
        let log = events.enumerated().compactMap { index, event in Self.read(event, index: index, now: now) }
            .sorted { ($0.occurredAt, $0.index) < ($1.occurredAt, $1.index) }
        var parcels: [String: [Event]] = [:]
        for event in log {
            if let number = event.trackingNumber { parcels[number, default: []].append(event) }
        }
        var views = parcels.compactMap { number, events in Self.parcel(number, events) }
        let shipped = log.filter { $0.trackingNumber != nil }.reduce(into: Set<String>()) { $0.formUnion($1.lineItems) }
        let untracked = log.filter { $0.trackingNumber == nil }
        views += expectations.compactMap { Self.expectation($0, shipped: shipped, untracked: untracked) }
        self.views = views.sorted { ShopOrdering.precedes($0.identifier, $1.identifier) }
    }

    /// Wallet's status for an event type, and the tracking status behind it where there is one; nil for a type this
    /// service does not know.
    static func status(_ type: String) -> (wallet: String, tracking: TrackingStatus?)? {
        switch type {
        case "processing": ("processing", nil)
        case "shipped": ("shipped", nil)
        case "in_transit": (TrackingStatus.inTransit.shippingStatus, .inTransit)
        case "out_for_delivery": (TrackingStatus.outForDelivery.shippingStatus, .outForDelivery)
        case "delivered": (TrackingStatus.delivered.shippingStatus, .delivered)
        case "failed_attempt": (TrackingStatus.failedAttempt.shippingStatus, .failedAttempt)
        case "undeliverable": (TrackingStatus.exception.shippingStatus, .exception)
        case "returned_to_sender": (TrackingStatus.returnedToSender.shippingStatus, .returnedToSender)
        case "canceled", "cancelled": (TrackingStatus.cancelled.shippingStatus, .cancelled)
        default: nil
        }
    }

    private static func read(_ event: [String: JSONValue], index: Int, now: Date) -> Event? {
        guard let type = event["type"]?.stringValue, type.utf8.count <= 64,
            let occurredAt = ShopField.occurrence(event["occurred_at"], now: now)
        else { return nil }
        let items = ShopField.array(event["line_items"], limit: 100).compactMap { ShopField.token($0["id"], max: 128) }
        return Event(
            index: index,
            occurredAt: occurredAt,
            type: type,
            lineItems: Set(items),
            trackingNumber: ShopField.trackingNumber(event["tracking_number"]),
            trackingURL: ShopField.httpsURL(event["tracking_url"]),
            carrier: ShopField.text(event["carrier"]),
            description: ShopField.text(event["description"], max: ShopField.maxDescription)
        )
    }

    /// The parcel with tracking number `number`, from its events oldest first.
    private static func parcel(_ number: String, _ events: [Event]) -> FulfillmentView? {
        let known = events.filter { status($0.type) != nil }
        guard let latest = known.last, let mapped = status(latest.type) else { return nil }
        let (wallet, tracking) = mapped
        var view = FulfillmentView(["fulfillmentType": .string("shipping")])
        view.identifier = "ucp-\(number)"
        view.status = wallet
        view.statusDescription = latest.description ?? tracking?.defaultDescription
        view.trackingNumber = number
        view.carrier = events.last { $0.carrier != nil }?.carrier
        view.trackingURL = events.last { $0.trackingURL != nil }?.trackingURL
        let moving: Set = ["shipped", "in_transit", "out_for_delivery", "delivered"]
        view.shippedAt = known.first { moving.contains($0.type) }.map { RFC3339.format($0.occurredAt) }
        if latest.type == "delivered" { view.deliveredAt = RFC3339.format(latest.occurredAt) }
        return view
    }

    /// An expectation as a fulfillment, unless a tracked event already names every item of it, or it is digital.
    private static func expectation(_ expectation: [String: JSONValue], shipped: Set<String>, untracked: [Event]) -> FulfillmentView? {
        guard let id = ShopField.identifier(expectation["id"]) else { return nil }
        let items = Set(ShopField.array(expectation["line_items"], limit: 100).compactMap { ShopField.token($0["id"], max: 128) })
        guard !items.isEmpty, !items.isSubset(of: shipped) else { return nil }
        let method = expectation["method_type"]?.stringValue ?? "shipping"
        guard method != "digital" else { return nil }
        let description = ShopField.text(expectation["description"], max: ShopField.maxDescription)
        var view = FulfillmentView([:])
        if method == "pickup" {
            view = FulfillmentView(["fulfillmentType": .string("pickup"), "displayName": .string(description ?? "Pickup")])
        } else {
            view = FulfillmentView(["fulfillmentType": .string("shipping")])
        }
        view.identifier = "ucp-expectation-\(id)"
        let latest = untracked.last { !$0.lineItems.isDisjoint(with: items) && ($0.type == "processing" || status($0.type)?.tracking == .cancelled) }
        view.status = latest.map { $0.type == "processing" ? "processing" : "cancelled" } ?? "open"
        view.statusDescription = description
        return view
    }
}
