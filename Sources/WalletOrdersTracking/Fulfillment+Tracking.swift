import Foundation
import WalletOrdersModel

/// What a tracking event changes of a Wallet fulfillment (an object of order.json's `fulfillments`).
extension TrackingEvent {
    /// `fulfillment` as this event leaves it: its status in Wallet's vocabulary for its kind, the carrier's words
    /// (or a default for statuses Wallet blurs), the estimated delivery, the carrier when it named none, and when
    /// it shipped, was delivered or was picked up. Nothing else of it changes.
    public func applied(to fulfillment: [String: JSONValue]) -> [String: JSONValue] {
        var changed = fulfillment
        let at = JSONValue.string(RFC3339.format(occurredAt))
        let isPickup = fulfillment["fulfillmentType"]?.stringValue == "pickup"
        if isPickup {
            changed["status"] = .string(status.pickupStatus)
            if status == .pickedUp || status == .delivered, changed["pickedUpAt"] == nil { changed["pickedUpAt"] = at }
        } else {
            changed["status"] = .string(status.shippingStatus)
            if changed["carrier"] == nil, let carrier { changed["carrier"] = .string(carrier) }
            switch status {
            case .inTransit, .outForDelivery, .availableForPickup, .delivered, .pickedUp:
                if changed["shippedAt"] == nil { changed["shippedAt"] = at }
            default: break
            }
            if status == .delivered || status == .pickedUp { changed["deliveredAt"] = at }
            if let estimatedDeliveryAt {
                changed["estimatedDeliveryAt"] = .string(RFC3339.format(estimatedDeliveryAt))
                changed["estimatedDeliveryWindowDuration"] = estimatedDeliveryWindowDuration.map(JSONValue.string)
            }
        }
        changed["statusDescription"] = (description ?? status.defaultDescription).map(JSONValue.string)
        return changed
    }
}
