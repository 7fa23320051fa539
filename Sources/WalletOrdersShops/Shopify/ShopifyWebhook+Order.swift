import Foundation
import WalletOrdersModel

/// A Shopify order (the payload of `orders/create`, `orders/updated`, `orders/cancelled` …) as a Wallet order.
///
/// | Wallet                 | Shopify                                                                                    |
/// |------------------------|--------------------------------------------------------------------------------------------|
/// | `orderNumber`          | `name` (`#1001`), else `order_number`                                                      |
/// | `lineItems[].title`    | `line_items[].title`, else `name`; `subtitle` from `variant_title`                         |
/// | `lineItems[].quantity` | `line_items[].quantity` (items with none left out)                                         |
/// | `lineItems[].price`    | `line_items[].price_set.presentment_money`, else `price` with the order's `currency`       |
/// | `lineItems[].sku`      | `line_items[].sku`                                                                         |
/// | `payment.total`        | `total_price_set.presentment_money`, else `total_price` with `currency`                    |
/// | `payment.status`       | `financial_status` (see `paymentStatus(_:)`)                                               |
/// | `customer`             | `customer.first_name`/`last_name` (else the billing address's), `email`, `phone`           |
/// | `status`               | `cancelled` with `cancelled_at`; `completed` with `closed_at`, or when `fulfillment_status` |
/// |                        | is `fulfilled` and every shipment is delivered; else `open`                                |
/// | `orderManagementURL`   | the connection's template; never `order_status_url`, which carries a key to the order      |
/// | `fulfillments`         | `fulfillments` (ShopifyWebhook+Fulfillments.swift)                                         |
///
/// Prices are in the currency the shopper paid in (`presentment_money`), which Shopify also sends in the shop's own
/// currency (`shop_money`, and the bare fields). Images are left out: Wallet takes only images inside the package.
extension ShopifyWebhook {
    /// The most line items and fulfillments taken from one order; past them, the first ones are kept.
    static let maxLineItems = 250
    static let maxFulfillments = 100

    /// The order a payload of one of `orderTopics` describes.
    public static func order(_ payload: [String: JSONValue], context: ShopMappingContext) throws(ShopPayloadError) -> ShopOrder {
        guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing or not an id") }
        let number = ShopField.token(payload["name"], max: ShopField.maxName) ?? ShopField.token(payload["order_number"])
        let fulfillments = ShopField.array(payload["fulfillments"], limit: maxFulfillments)
            .compactMap { $0.objectValue.flatMap { shipping($0, context: context) } }
            .sorted { ShopOrdering.precedes($0.identifier, $1.identifier) }
        let cancelled = ShopField.isSet(payload["cancelled_at"])
        var fields: [String: JSONValue] = [
            "orderNumber": number.map(JSONValue.string) ?? .null,
            "lineItems": lineItems(payload),
            "payment": payment(payload),
            "customer": customer(payload),
            "status": .string(status(payload, cancelled: cancelled, fulfillments: fulfillments)),
        ]
        if let url = context.orderManagementURL(id: id, number: ShopField.token(payload["order_number"]) ?? number) {
            fields["orderManagementURL"] = .string(url)
        }
        return ShopOrder(
            platform: .shopify,
            externalID: id,
            orderNumber: number,
            placedAt: ShopField.occurrence(payload["created_at"], now: context.now),
            fields: fields,
            fulfillments: fulfillments,
            paidWithApplePay: paidWithApplePay(payload),
            cancelled: cancelled
        )
    }

    /// Wallet's `payment.status` for a `financial_status`. A partial refund leaves the payment paid (Apple ties no
    /// status to refunds); an expired authorization is void; a status Shopify adds later is `pending`, which claims
    /// nothing.
    static func paymentStatus(_ status: String?) -> String {
        switch status {
        case "authorized": "authorized"
        case "paid", "partially_refunded": "paid"
        case "refunded": "refunded"
        case "voided", "expired": "voided"
        default: "pending"
        }
    }

    /// Whether Shopify's payload says the shopper paid with Apple Pay: a gateway name (`payment_gateway_names`, the
    /// older `gateway`) or a card's wallet (`payment_details.credit_card_wallet`, in API versions before 2023-04, and
    /// `transactions[].payment_details.credit_card_wallet` where a payload carries transactions) naming Apple Pay.
    /// Shopify Payments names itself, not the wallet, in `payment_gateway_names`: for its orders, only the card's
    /// wallet tells.
    static func paidWithApplePay(_ payload: [String: JSONValue]) -> Bool {
        var names = ShopField.array(payload["payment_gateway_names"], limit: 16).compactMap(\.stringValue)
        names += [payload["gateway"]?.stringValue, payload["payment_details"]?["credit_card_wallet"]?.stringValue].compactMap { $0 }
        for transaction in ShopField.array(payload["transactions"], limit: 32) {
            if let wallet = transaction["payment_details"]?["credit_card_wallet"]?.stringValue { names.append(wallet) }
        }
        return names.contains { ShopField.key($0).contains("applepay") }
    }

    private static func lineItems(_ payload: [String: JSONValue]) -> JSONValue {
        let currency = ShopMoney.currency(payload["currency"])
        let items = ShopField.array(payload["line_items"], limit: maxLineItems).compactMap { value -> JSONValue? in
            guard let item = value.objectValue, let title = ShopField.text(item["title"]) ?? ShopField.text(item["name"]),
                let quantity = ShopField.quantity(item["quantity"])
            else { return nil }
            var line: [String: JSONValue] = ["title": .string(title), "quantity": .int(quantity)]
            if let subtitle = ShopField.text(item["variant_title"]) { line["subtitle"] = .string(subtitle) }
            if let price = money(item["price_set"], fallback: item["price"], currency: currency) { line["price"] = price }
            if let sku = ShopField.token(item["sku"]) { line["sku"] = .string(sku) }
            return .object(line)
        }
        return items.isEmpty ? .null : .array(items)
    }

    private static func payment(_ payload: [String: JSONValue]) -> JSONValue {
        guard let total = money(payload["total_price_set"], fallback: payload["total_price"], currency: ShopMoney.currency(payload["currency"]))
        else { return .null }
        return .object(["total": total, "status": .string(paymentStatus(payload["financial_status"]?.stringValue))])
    }

    /// A CurrencyAmount from a money set's `presentment_money` (`{"amount", "currency_code"}`), else from a bare
    /// amount in the order's currency.
    private static func money(_ set: JSONValue?, fallback: JSONValue?, currency: String?) -> JSONValue? {
        if let presentment = set?["presentment_money"], let code = ShopMoney.currency(presentment["currency_code"]),
            let amount = ShopMoney.decimal(presentment["amount"])
        {
            return ShopMoney.amount(amount, currency: code)
        }
        guard let currency, let amount = ShopMoney.decimal(fallback) else { return nil }
        return ShopMoney.amount(amount, currency: currency)
    }

    private static func customer(_ payload: [String: JSONValue]) -> JSONValue {
        let customer = payload["customer"]?.objectValue ?? [:]
        let billing = payload["billing_address"]?.objectValue ?? [:]
        var person: [String: JSONValue] = [:]
        let given = ShopField.text(customer["first_name"]) ?? ShopField.text(billing["first_name"])
        let family = ShopField.text(customer["last_name"]) ?? ShopField.text(billing["last_name"])
        let email = ShopField.token(payload["email"]) ?? ShopField.token(payload["contact_email"]) ?? ShopField.token(customer["email"])
        let phone = ShopField.token(payload["phone"]) ?? ShopField.token(customer["phone"]) ?? ShopField.token(billing["phone"])
        for (key, value) in [("givenName", given), ("familyName", family), ("emailAddress", email), ("phoneNumber", phone)] {
            if let value { person[key] = .string(value) }
        }
        return person.isEmpty ? .null : .object(person)
    }

    private static func status(_ payload: [String: JSONValue], cancelled: Bool, fulfillments: [FulfillmentView]) -> String {
        if cancelled { return "cancelled" }
        if ShopField.isSet(payload["closed_at"]) { return "completed" }
        let delivered =
            fulfillments.contains { $0.status == "delivered" }
            && fulfillments.allSatisfy { $0.status == "delivered" || $0.status == "cancelled" }
        return payload["fulfillment_status"]?.stringValue == "fulfilled" && delivered ? "completed" : "open"
    }
}
