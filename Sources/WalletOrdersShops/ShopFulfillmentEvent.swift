import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// What a carrier said about one shipment of a shop's order, as the shop relayed it (Shopify's fulfillment events):
/// the shipment by its `fulfillmentIdentifier`, and the event in the tracking events' vocabulary, so that it changes
/// the fulfillment exactly as a carrier aggregator's event would.
public struct ShopFulfillmentEvent: Sendable, Equatable {
    /// The platform's id of the order.
    public var externalOrderID: String
    /// The `fulfillmentIdentifier` of the shipment (`shopify-<fulfillment id>`).
    public var fulfillmentIdentifier: String
    /// The event: `id` is the platform's event id (`shopify-event-<id>`), for duplicates; `trackingNumber` is empty
    /// (the shipment is named by `fulfillmentIdentifier`, not by its number).
    public var event: TrackingEvent

    public init(externalOrderID: String, fulfillmentIdentifier: String, event: TrackingEvent) {
        self.externalOrderID = externalOrderID
        self.fulfillmentIdentifier = fulfillmentIdentifier
        self.event = event
    }

    /// `document` with the event applied to the fulfillment it names (`TrackingEvent.applied(to:)`), unless the
    /// fulfillment is missing or is further along than the event (webhooks arrive in any order: a late `in_transit`
    /// never undoes `delivered`). The document itself when nothing changes.
    public func applied(to document: OrderDocument) -> OrderDocument {
        document.changingFulfillments { fulfillment in
            guard fulfillment.identifier == fulfillmentIdentifier else { return }
            let changed = event.applied(to: fulfillment)
            if !ShippingProgress.movesBack(from: fulfillment.status, to: changed.status) { fulfillment = changed }
        }
    }
}
