import WalletOrdersModel

/// What one signed webhook changes of a Wallet order, for the caller to lay over the order it keeps for the shop's
/// order `externalOrderID`.
public enum ShopUpdate: Sendable, Equatable {
    /// The whole order (Shopify `orders/*`, WooCommerce `order.created`/`order.updated`, every UCP webhook).
    case order(ShopOrder)
    /// One shipment of an order (Shopify `fulfillments/create` and `fulfillments/update`).
    case fulfillment(externalOrderID: String, FulfillmentView)
    /// What a carrier said about one shipment (Shopify `fulfillment_events/create`).
    case fulfillmentEvent(ShopFulfillmentEvent)
    /// The shop deleted the order (WooCommerce `order.deleted`, Shopify `orders/delete`): the Wallet order is cancelled.
    case deleted(externalOrderID: String)
    /// The body says nothing Wallet shows (a fulfillment event that only confirms); answer it and write nothing.
    case ignored(externalOrderID: String?, reason: String)

    /// The platform's id of the order this update is about.
    public var externalOrderID: String? {
        switch self {
        case .order(let order): order.externalID
        case .fulfillment(let id, _), .deleted(let id): id
        case .fulfillmentEvent(let event): event.externalOrderID
        case .ignored(let id, _): id
        }
    }

    /// `document` with this update laid over it: see `ShopOrder.applied(to:)` for an order, and
    /// `ShopFulfillmentEvent.applied(to:)` for an event. A deletion sets `status` to `cancelled`. The result is the
    /// document itself when nothing changes: compare before writing.
    public func applied(to document: OrderDocument) -> OrderDocument {
        switch self {
        case .order(let order):
            return order.applied(to: document)
        case .fulfillment(_, let fulfillment):
            return FulfillmentMerge.merging([fulfillment], into: document)
        case .fulfillmentEvent(let event):
            return event.applied(to: document)
        case .deleted:
            guard document["status"] != .string("cancelled") else { return document }
            var changed = document
            changed["status"] = .string("cancelled")
            return changed
        case .ignored:
            return document
        }
    }
}
