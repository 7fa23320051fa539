import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// A UCP order (`dev.ucp.shopping.order`, the body of every order webhook) as a Wallet order.
///
/// | Wallet                 | UCP                                                                                   |
/// |------------------------|---------------------------------------------------------------------------------------|
/// | `orderNumber`          | `label`                                                                               |
/// | `lineItems[].title`    | `line_items[].item.title` (items whose `quantity.total` is 0 left out)                |
/// | `lineItems[].quantity` | `line_items[].quantity.total`, in whole units of `item.quantity_unit` (`scale`)       |
/// | `lineItems[].price`    | `line_items[].item.price` (minor units) with the order's `currency`                   |
/// | `payment.total`        | the `totals` entry of type `total`, with `currency`                                   |
/// | `payment.status`       | `paid` (an order is a completed checkout); `refunded` once completed `refund`         |
/// |                        | adjustments return the whole total                                                    |
/// | `status`               | `cancelled` when every line item is removed or a completed order-level `cancellation` |
/// |                        | adjustment says so; `completed` when every item is fulfilled and every parcel         |
/// |                        | delivered; else `open`                                                                |
/// | `orderManagementURL`   | the connection's template                                                             |
/// | `fulfillments`         | one per tracking number in `fulfillment.events`, and one per `fulfillment.expectations` |
/// |                        | entry whose items no tracked event names yet                                         |
///
/// A parcel (`ucp-<tracking number>`) takes its status from its latest event, `carrier` and https `trackingURL` from
/// the latest events that name them, `shippedAt` from its first event past `processing`, `deliveredAt` from its
/// `delivered` event, and `statusDescription` from the latest event's `description`. Event types:
///
/// | UCP                  | Wallet                                                   |
/// |----------------------|----------------------------------------------------------|
/// | `processing`         | `processing`                                             |
/// | `shipped`            | `shipped`                                                |
/// | `in_transit`         | `onTheWay` (tracking status `in_transit`)                |
/// | `out_for_delivery`   | `outForDelivery`                                         |
/// | `delivered`          | `delivered`                                              |
/// | `failed_attempt`     | `issue` (`failed_attempt`, "Delivery attempted")         |
/// | `undeliverable`      | `issue` (`exception`)                                    |
/// | `returned_to_sender` | `issue` (`returned_to_sender`, "Returned to the sender") |
/// | `canceled`           | `cancelled`                                              |
///
/// Types are an open vocabulary in UCP; one this service does not know changes nothing. An expectation not yet
/// shipped (`ucp-expectation-<id>`) is `open`, `processing` or `cancelled` after the latest untracked event naming its
/// items, with its `description` ("Arrives in 2-3 business days") under the status; a `pickup` one is a pickup
/// fulfillment, a `digital` one none. UCP gives no estimated delivery time a machine can read.
extension UCPWebhook {
    /// The most events, expectations and line items read from one order.
    static let maxEvents = 500
    static let maxExpectations = 50

    /// The order a signed webhook's `body` holds.
    public static func order(body: [UInt8], context: ShopMappingContext) throws(ShopPayloadError) -> ShopOrder {
        try order(ShopPayload.object(body), context: context)
    }

    /// The order a UCP order object describes.
    public static func order(_ payload: [String: JSONValue], context: ShopMappingContext) throws(ShopPayloadError) -> ShopOrder {
        guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing or not an id") }
        let number = ShopField.token(payload["label"])
        let currency = ShopMoney.currency(payload["currency"])
        let items = ShopField.array(payload["line_items"], limit: ShopifyWebhook.maxLineItems).compactMap(\.objectValue)
        let fulfillment = payload["fulfillment"]?.objectValue ?? [:]
        let fulfillments = UCPFulfillments(
            events: ShopField.array(fulfillment["events"], limit: maxEvents).compactMap(\.objectValue),
            expectations: ShopField.array(fulfillment["expectations"], limit: maxExpectations).compactMap(\.objectValue),
            now: context.now
        ).views
        let status = orderStatus(payload, items: items, fulfillments: fulfillments)
        var fields: [String: JSONValue] = [
            "orderNumber": number.map(JSONValue.string) ?? .null,
            "lineItems": lineItems(items, currency: currency),
            "payment": payment(payload, currency: currency),
            "status": .string(status),
        ]
        if let url = context.orderManagementURL(id: id, number: number) { fields["orderManagementURL"] = .string(url) }
        return ShopOrder(
            platform: .ucp,
            externalID: id,
            orderNumber: number,
            fields: fields,
            fulfillments: fulfillments,
            cancelled: status == "cancelled"
        )
    }

    private static func lineItems(_ items: [[String: JSONValue]], currency: String?) -> JSONValue {
        let lines = items.compactMap { line -> JSONValue? in
            let item = line["item"]?.objectValue ?? [:]
            guard let title = ShopField.text(item["title"]), let total = ShopField.integer(line["quantity"]?["total"]), total > 0,
                total <= 1_000_000_000,
                let quantity = measured(steps: total, scale: ShopField.integer(item["quantity_unit"]?["scale"]) ?? 0)
            else { return nil }
            var entry: [String: JSONValue] = ["title": .string(title), "quantity": quantity]
            if let currency, let units = ShopField.integer(item["price"]), let price = ShopMoney.decimal(minorUnits: units, currency: currency) {
                entry["price"] = ShopMoney.amount(price, currency: currency)
            }
            return .object(entry)
        }
        return lines.isEmpty ? .null : .array(lines)
    }

    /// `steps` of a unit with `scale` fraction digits as a JSON number: 150 at scale 2 is 1.5. The number is read from
    /// its decimal text, so it prints back as that text.
    private static func measured(steps: Int, scale: Int) -> JSONValue? {
        guard (0...6).contains(scale), steps <= ShopMoney.maxMinorUnits else { return nil }
        guard scale > 0 else { return .int(steps) }
        var digits = String(steps)
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        let split = digits.index(digits.endIndex, offsetBy: -scale)
        let fraction = digits[split...].reversed().drop { $0 == "0" }.reversed()
        guard !fraction.isEmpty else { return .int(Int(digits[..<split]) ?? 0) }
        return Double(String(digits[..<split]) + "." + String(fraction)).map(JSONValue.double)
    }

    private static func payment(_ payload: [String: JSONValue], currency: String?) -> JSONValue {
        let totals = ShopField.array(payload["totals"], limit: 32)
        guard let currency, let entry = totals.first(where: { $0["type"]?.stringValue == "total" }),
            let units = ShopField.integer(entry["amount"]), let total = ShopMoney.decimal(minorUnits: units, currency: currency)
        else { return .null }
        return .object([
            "total": ShopMoney.amount(total, currency: currency), "status": .string(refunded(payload, total: units) ? "refunded" : "paid"),
        ])
    }

    /// Whether completed `refund` adjustments together return at least `total` minor units.
    private static func refunded(_ payload: [String: JSONValue], total: Int) -> Bool {
        var returned = 0
        for adjustment in ShopField.array(payload["adjustments"], limit: 200) {
            guard adjustment["type"]?.stringValue == "refund", adjustment["status"]?.stringValue == "completed" else { continue }
            for entry in ShopField.array(adjustment["totals"], limit: 32) where entry["type"]?.stringValue == "total" {
                guard let amount = ShopField.integer(entry["amount"]), amount < 0, amount > -ShopMoney.maxMinorUnits else { continue }
                returned = min(returned - amount, ShopMoney.maxMinorUnits)
            }
        }
        return total > 0 && returned >= total
    }

    private static func orderStatus(_ payload: [String: JSONValue], items: [[String: JSONValue]], fulfillments: [FulfillmentView]) -> String {
        let totals = items.map { ShopField.integer($0["quantity"]?["total"]) ?? 0 }
        let cancellation = ShopField.array(payload["adjustments"], limit: 200).contains { adjustment in
            ["cancellation", "cancelled", "canceled"].contains(adjustment["type"]?.stringValue ?? "")
                && adjustment["status"]?.stringValue == "completed" && (adjustment["line_items"]?.arrayValue ?? []).isEmpty
        }
        if cancellation || (!totals.isEmpty && totals.allSatisfy { $0 == 0 }) { return "cancelled" }
        let fulfilled = items.allSatisfy { item in
            let total = ShopField.integer(item["quantity"]?["total"]) ?? 0
            return total == 0 || ShopField.integer(item["quantity"]?["fulfilled"]) == total
        }
        let parcels = fulfillments.filter { $0.identifier?.hasPrefix("ucp-expectation-") == false }
        let delivered =
            parcels.contains { $0.status == "delivered" } && parcels.allSatisfy { $0.status == "delivered" || $0.status == "cancelled" }
        return !items.isEmpty && fulfilled && delivered ? "completed" : "open"
    }
}
