import Foundation
import WalletOrdersModel

/// A shop's order as a Wallet order sees it: the top-level fields the shop decides, its shipments as Wallet
/// fulfillments, and what the caller needs to decide whether to keep it at all.
///
/// The caller keeps everything else of the document (identifiers, merchant, web service, dates, what the merchant's
/// template adds) and lays this over it with `applied(to:)`. Mapping one payload twice gives equal values (and
/// `applied(to:)` equal bytes), so an `orders/updated` that changes nothing Wallet shows writes nothing.
public struct ShopOrder: Sendable, Equatable {
    /// The top-level fields a shop's order may set; see `fields`.
    public static let ownedFields: Set<String> = ["orderNumber", "lineItems", "payment", "customer", "status", "orderManagementURL"]

    public var platform: ShopPlatform
    /// The platform's own id of the order (Shopify's and WooCommerce's `id`, UCP's `id`): letters, digits and
    /// `. - _ : ~` only, at most 128 characters, so the caller can namespace it into an `orderIdentifier`.
    public var externalID: String
    /// What the shop calls the order (`#1001`), as `orderNumber` holds it.
    public var orderNumber: String?
    /// When the shop took the order, for a new Wallet order's `createdAt`; nil when the payload gives no plausible one.
    public var placedAt: Date?
    /// Fields of order.json (of `ownedFields`), each replacing the document's whole member; `.null` removes the
    /// member (the shop has none: a customer without a name, an order without line items).
    /// `orderManagementURL` is here only when the connection has a template, and never removed.
    public var fields: [String: JSONValue]
    /// Shipping fulfillments, each with a `fulfillmentIdentifier` that stays the same for one shipment of the shop
    /// (`shopify-<fulfillment id>`, `wc-<tracking id>`, `ucp-<tracking number>`), in a stable order.
    public var fulfillments: [FulfillmentView]
    /// Whether the shopper paid with Apple Pay: Shopify hands its own order to Wallet then, and a connection may skip
    /// such orders so that the shopper does not get two Wallet orders for one purchase.
    public var paidWithApplePay: Bool
    /// Whether the shop cancelled the order (`status` is then `cancelled`).
    public var cancelled: Bool

    public init(
        platform: ShopPlatform,
        externalID: String,
        orderNumber: String? = nil,
        placedAt: Date? = nil,
        fields: [String: JSONValue] = [:],
        fulfillments: [FulfillmentView] = [],
        paidWithApplePay: Bool = false,
        cancelled: Bool = false
    ) {
        self.platform = platform
        self.externalID = externalID
        self.orderNumber = orderNumber
        self.placedAt = placedAt
        self.fields = fields
        self.fulfillments = fulfillments
        self.paidWithApplePay = paidWithApplePay
        self.cancelled = cancelled
    }

    /// `document` with this order laid over it: each of `fields` set (or removed, for `.null`), and each of
    /// `fulfillments` merged into the document's fulfillment with the same identifier, or added after them. A
    /// fulfillment's progress never moves back (a carrier's `delivered` stays when the shop still says in transit),
    /// and what the shop does not say of a fulfillment (a delivery time a carrier reported) stays. Everything else of
    /// the document stays as it is; the result is the document itself when nothing changes.
    public func applied(to document: OrderDocument) -> OrderDocument {
        var changed = document
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where Self.ownedFields.contains(key) {
            changed[key] = value == .null ? nil : value
        }
        return FulfillmentMerge.merging(fulfillments, into: changed)
    }
}
