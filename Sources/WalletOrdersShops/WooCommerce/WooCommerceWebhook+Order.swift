import Foundation
import WalletOrdersModel

/// A WooCommerce order (REST API v3, the payload of `order.created` and `order.updated`) as a Wallet order.
///
/// | Wallet                 | WooCommerce                                                                          |
/// |------------------------|--------------------------------------------------------------------------------------|
/// | `orderNumber`          | `number`, else `id`                                                                  |
/// | `lineItems[].title`    | `line_items[].name`; `subtitle` from the item's shown attributes (`display_key: display_value`) |
/// | `lineItems[].quantity` | `line_items[].quantity`                                                              |
/// | `lineItems[].price`    | `line_items[].subtotal` (with `subtotal_tax` when `prices_include_tax`) ÷ quantity, when exact |
/// | `lineItems[].sku`      | `line_items[].sku`                                                                   |
/// | `payment.total`        | `total` with `currency`                                                              |
/// | `payment.status`       | `status` (see `paymentStatus(_:)`)                                                   |
/// | `customer`             | `billing.first_name`, `last_name`, `email`, `phone`                                  |
/// | `status`               | `status`: `completed` completed; `cancelled`, `failed`, `trash` cancelled; `refunded` |
/// |                        | completed when it shipped, else cancelled; any other open                            |
/// | `orderManagementURL`   | the connection's template                                                            |
/// | `fulfillments`         | the tracking plugins' order meta (WooCommerceWebhook+Tracking.swift)                 |
///
/// WooCommerce writes a line item's unit `price` as a JSON number rounded by PHP; the subtotal, a decimal string, is
/// what the shopper was charged, so the unit price comes from it, and is left out when it does not divide exactly.
extension WooCommerceWebhook {
    /// The order a payload of `order.created` or `order.updated` describes.
    public static func order(_ payload: [String: JSONValue], context: ShopMappingContext) throws(ShopPayloadError) -> ShopOrder {
        guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing or not an id") }
        let number = ShopField.token(payload["number"]) ?? id
        let fulfillments = shipments(payload, context: context)
        let word = payload["status"]?.stringValue
        let status = orderStatus(word, shipped: !fulfillments.isEmpty)
        var fields: [String: JSONValue] = [
            "orderNumber": .string(number),
            "lineItems": lineItems(payload),
            "payment": payment(payload, status: word),
            "customer": customer(payload),
            "status": .string(status),
        ]
        if let url = context.orderManagementURL(id: id, number: number) { fields["orderManagementURL"] = .string(url) }
        return ShopOrder(
            platform: .woocommerce,
            externalID: id,
            orderNumber: number,
            placedAt: ShopField.occurrenceReadingUTC(payload["date_created_gmt"], now: context.now),
            fields: fields,
            fulfillments: fulfillments,
            paidWithApplePay: paidWithApplePay(payload),
            cancelled: status == "cancelled"
        )
    }

    /// Wallet's `payment.status` for an order's `status`: paid once WooCommerce is processing or done; `on-hold`
    /// (waiting for a bank transfer) and any status a plugin adds are `pending`.
    static func paymentStatus(_ status: String?) -> String {
        switch status {
        case "processing", "completed": "paid"
        case "refunded": "refunded"
        case "failed": "declined"
        case "cancelled": "voided"
        default: "pending"
        }
    }

    /// Wallet's order `status` for WooCommerce's.
    static func orderStatus(_ status: String?, shipped: Bool) -> String {
        switch status {
        case "completed": "completed"
        case "cancelled", "failed", "trash": "cancelled"
        case "refunded": shipped ? "completed" : "cancelled"
        default: "open"
        }
    }

    /// Whether the order's payment method names Apple Pay (`payment_method_title`, as WooPayments and the Stripe
    /// gateway write it: "Apple Pay (WooPayments)"), or its id does.
    static func paidWithApplePay(_ payload: [String: JSONValue]) -> Bool {
        [payload["payment_method_title"], payload["payment_method"]].compactMap { $0?.stringValue }
            .contains { ShopField.key($0).contains("applepay") }
    }

    private static func lineItems(_ payload: [String: JSONValue]) -> JSONValue {
        let currency = ShopMoney.currency(payload["currency"])
        let taxIncluded = payload["prices_include_tax"] == .bool(true)
        let items = ShopField.array(payload["line_items"], limit: ShopifyWebhook.maxLineItems).compactMap { value -> JSONValue? in
            guard let item = value.objectValue, let title = ShopField.text(item["name"]),
                let quantity = ShopField.quantity(item["quantity"])
            else { return nil }
            var line: [String: JSONValue] = ["title": .string(title), "quantity": .int(quantity)]
            if let subtitle = attributes(item["meta_data"]) { line["subtitle"] = .string(subtitle) }
            if let currency, var total = ShopMoney.decimal(item["subtotal"]) {
                if taxIncluded {
                    total = ShopMoney.decimal(item["subtotal_tax"]).flatMap { ShopMoney.sum(total, $0, currency: currency) } ?? ""
                }
                if let price = ShopMoney.unitPrice(total: total, quantity: quantity, currency: currency) {
                    line["price"] = ShopMoney.amount(price, currency: currency)
                }
            }
            if let sku = ShopField.token(item["sku"]) { line["sku"] = .string(sku) }
            return .object(line)
        }
        return items.isEmpty ? .null : .array(items)
    }

    /// A line item's attributes as the shop shows them (`Size: L, Colour: Blue`); meta whose key starts with `_` is the
    /// shop's own and not shown.
    private static func attributes(_ meta: JSONValue?) -> String? {
        let pairs = ShopField.array(meta, limit: 16).compactMap { entry -> String? in
            guard let key = entry["key"]?.stringValue, !key.hasPrefix("_"),
                let name = ShopField.text(entry["display_key"], max: 64), let value = ShopField.text(entry["display_value"], max: 128)
            else { return nil }
            return "\(name): \(value)"
        }
        return pairs.isEmpty ? nil : ShopField.text(.string(pairs.joined(separator: ", ")))
    }

    private static func payment(_ payload: [String: JSONValue], status: String?) -> JSONValue {
        guard let currency = ShopMoney.currency(payload["currency"]), let total = ShopMoney.decimal(payload["total"]) else { return .null }
        return .object(["total": ShopMoney.amount(total, currency: currency), "status": .string(paymentStatus(status))])
    }

    private static func customer(_ payload: [String: JSONValue]) -> JSONValue {
        let billing = payload["billing"]?.objectValue ?? [:]
        var person: [String: JSONValue] = [:]
        let values = [
            ("givenName", ShopField.text(billing["first_name"])), ("familyName", ShopField.text(billing["last_name"])),
            ("emailAddress", ShopField.token(billing["email"])), ("phoneNumber", ShopField.token(billing["phone"])),
        ]
        for (key, value) in values {
            if let value { person[key] = .string(value) }
        }
        return person.isEmpty ? .null : .object(person)
    }
}
