import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// Shopify's fulfillments (in an order's `fulfillments`, and the payloads of `fulfillments/create` and
/// `fulfillments/update`) as Wallet shipping fulfillments, and its fulfillment events (`fulfillment_events/create`) as
/// tracking events. One Shopify fulfillment holds one parcel.
///
/// | Wallet                  | Shopify fulfillment                                                              |
/// |-------------------------|----------------------------------------------------------------------------------|
/// | `fulfillmentIdentifier` | `shopify-` and `id`                                                               |
/// | `status`                | `status` (`pending`/`open` processing, `cancelled`, `error`/`failure` issue);     |
/// |                         | for `success`, `shipment_status` as the table below maps it (none: `shipped`)    |
/// | `carrier`               | `tracking_company`                                                               |
/// | `trackingNumber`        | `tracking_number`, else the first of `tracking_numbers`                          |
/// | `trackingURL`           | `tracking_url`, else the first of `tracking_urls`; only https                    |
/// | `shippedAt`             | `created_at`, once the fulfillment succeeded                                     |
///
/// A fulfillment event (`status`, `happened_at`, `estimated_delivery_at`, `message`) changes its fulfillment as a
/// carrier's tracking event does (`TrackingEvent.applied(to:)`): the status, `statusDescription` from `message`,
/// `deliveredAt` from `happened_at` when delivered, `estimatedDeliveryAt`. Events are the only source of a delivery
/// time and of an estimate. Statuses, Shopify's words to the tracking events' vocabulary:
///
/// | Shopify                                           | tracking status        | Wallet           |
/// |---------------------------------------------------|------------------------|------------------|
/// | `label_printed`, `label_purchased`                | `info_received`        | `processing`     |
/// | `carrier_picked_up`, `in_transit`                 | `in_transit`           | `onTheWay`       |
/// | `out_for_delivery`                                | `out_for_delivery`     | `outForDelivery` |
/// | `ready_for_pickup`                                | `available_for_pickup` | `onTheWay`       |
/// | `picked_up`, `delivered`                          | `picked_up`, `delivered` | `delivered`    |
/// | `attempted_delivery`                              | `failed_attempt`       | `issue`          |
/// | `delayed`, `failure`, `buyer_action_required`     | `exception`            | `issue`          |
/// | `returning_to_sender`, `returned_to_sender`       | `returned_to_sender`   | `issue`          |
///
/// `confirmed` (Shopify's "no other information") and any word Shopify adds later say nothing about the parcel.
extension ShopifyWebhook {
    /// The tracking status a `shipment_status` or a fulfillment event's `status` names; nil for none.
    static func trackingStatus(_ status: String?) -> TrackingStatus? {
        switch status {
        case "label_printed", "label_purchased": .infoReceived
        case "carrier_picked_up", "in_transit": .inTransit
        case "out_for_delivery": .outForDelivery
        case "ready_for_pickup": .availableForPickup
        case "picked_up": .pickedUp
        case "delivered": .delivered
        case "attempted_delivery": .failedAttempt
        case "delayed", "failure", "buyer_action_required": .exception
        case "returning_to_sender", "returned_to_sender": .returnedToSender
        default: nil
        }
    }

    /// A Shopify fulfillment as a Wallet shipping fulfillment; nil without an id.
    static func shipping(_ fulfillment: [String: JSONValue], context: ShopMappingContext) -> FulfillmentView? {
        guard let id = ShopField.identifier(fulfillment["id"]) else { return nil }
        var view = FulfillmentView(["fulfillmentType": .string("shipping")])
        view.identifier = "shopify-\(id)"
        var succeeded = false
        switch fulfillment["status"]?.stringValue {
        case "pending", "open": view.status = "processing"
        case "cancelled": view.status = "cancelled"
        case "error", "failure": view.status = "issue"
        default:
            let tracking = trackingStatus(fulfillment["shipment_status"]?.stringValue)
            view.status = tracking?.shippingStatus ?? "shipped"
            view.statusDescription = tracking?.defaultDescription
            succeeded = true
        }
        view.carrier = ShopField.text(fulfillment["tracking_company"])
        view.trackingNumber =
            ShopField.trackingNumber(fulfillment["tracking_number"])
            ?? ShopField.array(fulfillment["tracking_numbers"], limit: 1).first.flatMap { ShopField.trackingNumber($0) }
        view.trackingURL =
            ShopField.httpsURL(fulfillment["tracking_url"])
            ?? ShopField.array(fulfillment["tracking_urls"], limit: 1).first.flatMap { ShopField.httpsURL($0) }
        if succeeded, let shipped = ShopField.occurrence(fulfillment["created_at"], now: context.now) {
            view.shippedAt = RFC3339.format(shipped)
        }
        return view
    }

    /// The payload of `fulfillments/create` or `fulfillments/update`: one fulfillment, with its `order_id`.
    static func fulfillmentUpdate(_ payload: [String: JSONValue], context: ShopMappingContext) throws(ShopPayloadError) -> ShopUpdate {
        guard let order = ShopField.identifier(payload["order_id"]) else { throw .unreadable("order_id is missing") }
        guard let view = shipping(payload, context: context) else { throw .unreadable("id is missing") }
        return .fulfillment(externalOrderID: order, view)
    }

    /// The payload of `fulfillment_events/create`: one event of one fulfillment (`fulfillment_id`) of one order
    /// (`order_id`). An event whose status says nothing of the parcel, or whose `happened_at` is not plausible, is
    /// ignored.
    static func fulfillmentEventUpdate(_ payload: [String: JSONValue], context: ShopMappingContext) throws(ShopPayloadError) -> ShopUpdate {
        guard let order = ShopField.identifier(payload["order_id"]) else { throw .unreadable("order_id is missing") }
        guard let fulfillment = ShopField.identifier(payload["fulfillment_id"]) else { throw .unreadable("fulfillment_id is missing") }
        guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing") }
        guard let status = trackingStatus(payload["status"]?.stringValue) else {
            return .ignored(externalOrderID: order, reason: "the event's status says nothing about where the parcel is")
        }
        guard let occurredAt = ShopField.occurrence(payload["happened_at"], now: context.now) else {
            return .ignored(externalOrderID: order, reason: "happened_at is missing or not a plausible time")
        }
        let event = TrackingEvent(
            id: "shopify-event-\(id)",
            trackingNumber: "",
            status: status,
            occurredAt: occurredAt,
            estimatedDeliveryAt: ShopField.expectedDelivery(payload["estimated_delivery_at"], now: context.now),
            description: ShopField.text(payload["message"], max: ShopField.maxDescription)
        )
        return .fulfillmentEvent(ShopFulfillmentEvent(externalOrderID: order, fulfillmentIdentifier: "shopify-\(fulfillment)", event: event))
    }
}
