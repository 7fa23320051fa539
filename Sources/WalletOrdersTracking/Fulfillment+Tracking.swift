import Foundation
import WalletOrdersModel

/// What a tracking event changes of a Wallet fulfillment (an object of order.json's `fulfillments`).
extension TrackingEvent {
    /// `fulfillment` as this event leaves it: its status in Wallet's vocabulary for its kind, the carrier's words
    /// (or a default for statuses Wallet blurs), the estimated delivery, the carrier when it named none, and when
    /// it shipped, was delivered or was picked up. Nothing else of it changes.
    public func applied(to fulfillment: FulfillmentView) -> FulfillmentView {
        var changed = fulfillment
        let at = RFC3339.format(occurredAt)
        if fulfillment.isPickup {
            changed.status = status.pickupStatus
            if status == .pickedUp || status == .delivered, changed.pickedUpAt == nil { changed.pickedUpAt = at }
        } else {
            changed.status = status.shippingStatus
            if changed.carrier == nil, let carrier { changed.carrier = carrier }
            switch status {
            case .inTransit, .outForDelivery, .availableForPickup, .delivered, .pickedUp:
                if changed.shippedAt == nil { changed.shippedAt = at }
            default: break
            }
            if status == .delivered || status == .pickedUp { changed.deliveredAt = at }
            if let estimatedDeliveryAt {
                changed.estimatedDeliveryAt = RFC3339.format(estimatedDeliveryAt)
                changed.estimatedDeliveryWindowDuration = estimatedDeliveryWindowDuration
            }
        }
        changed.statusDescription = description ?? status.defaultDescription
        return changed
    }
}
