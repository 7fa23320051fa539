import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// An order's parcels, from the order meta of the tracking plugins (WooCommerce itself keeps no tracking numbers), as
/// Wallet shipping fulfillments with status `shipped`: the plugins record that a parcel left, not where it is.
///
/// | Wallet                  | Shipment Tracking (`_wc_shipment_tracking_items`)      | AfterShip (`_aftership_tracking_items`) |
/// |-------------------------|--------------------------------------------------------|-----------------------------------------|
/// | `fulfillmentIdentifier` | `wc-` and `tracking_id`, else the tracking number      | `aftership-` and `tracking_id`, else the number |
/// | `carrier`               | `custom_tracking_provider`, else `tracking_provider`   | `slug`                                  |
/// | `trackingNumber`        | `tracking_number`                                      | `tracking_number`                       |
/// | `trackingURL`           | `custom_tracking_link`, only https                     | (none)                                  |
/// | `shippedAt`             | `date_shipped` (unix seconds)                          | `additional_fields.ship_date` (a day, as noon UTC) |
///
/// A parcel both plugins list (AfterShip's plugin imports Shipment Tracking's) is taken once, from Shipment Tracking.
/// A cancelled order's parcels are `cancelled`.
extension WooCommerceWebhook {
    /// The most parcels taken from one order.
    static let maxParcels = 50

    static func shipments(_ payload: [String: JSONValue], context: ShopMappingContext) -> [FulfillmentView] {
        var tracking: JSONValue?
        var aftership: JSONValue?
        for entry in ShopField.array(payload["meta_data"], limit: 1_000) {
            switch entry["key"]?.stringValue {
            case "_wc_shipment_tracking_items": tracking = tracking ?? entry["value"]
            case "_aftership_tracking_items": aftership = aftership ?? entry["value"]
            default: break
            }
        }
        let cancelled = ["cancelled", "failed", "trash"].contains(payload["status"]?.stringValue ?? "")
        var views: [FulfillmentView] = []
        var numbers: Set<String> = []
        for item in ShopField.array(tracking, limit: maxParcels) {
            guard let view = shipmentTracking(item, context: context), let number = view.trackingNumber, numbers.insert(number).inserted
            else { continue }
            views.append(view)
        }
        for item in ShopField.array(aftership, limit: maxParcels) {
            guard let view = afterShip(item, context: context), let number = view.trackingNumber, numbers.insert(number).inserted else { continue }
            views.append(view)
        }
        return views.prefix(maxParcels).map { view in
            var view = view
            if cancelled { view.status = "cancelled" }
            return view
        }.sorted { ShopOrdering.precedes($0.identifier, $1.identifier) }
    }

    private static func shipmentTracking(_ item: JSONValue, context: ShopMappingContext) -> FulfillmentView? {
        guard let number = ShopField.trackingNumber(item["tracking_number"]) else { return nil }
        var view = shipped(identifier: "wc-" + (ShopField.identifier(item["tracking_id"]) ?? number), number: number)
        guard view.identifier != nil else { return nil }
        view.carrier = ShopField.text(item["custom_tracking_provider"]) ?? ShopField.text(item["tracking_provider"])
        view.trackingURL = ShopField.httpsURL(item["custom_tracking_link"])
        view.shippedAt = ShopField.occurrence(unixSeconds: item["date_shipped"], now: context.now).map(RFC3339.format)
        return view
    }

    private static func afterShip(_ item: JSONValue, context: ShopMappingContext) -> FulfillmentView? {
        guard let number = ShopField.trackingNumber(item["tracking_number"]) else { return nil }
        var view = shipped(identifier: "aftership-" + (ShopField.identifier(item["tracking_id"]) ?? number), number: number)
        guard view.identifier != nil else { return nil }
        view.carrier = ShopField.text(item["slug"])
        view.shippedAt = day(item["additional_fields"]?["ship_date"], now: context.now).map(RFC3339.format)
        return view
    }

    /// A shipped parcel; its identifier dropped (and the parcel with it) when longer than Wallet takes.
    private static func shipped(identifier: String, number: String) -> FulfillmentView {
        var view = FulfillmentView(["fulfillmentType": .string("shipping"), "status": .string("shipped")])
        view.identifier = identifier.unicodeScalars.count <= ShopField.maxName ? identifier : nil
        view.trackingNumber = number
        return view
    }

    /// The day `20260115` or `2026-01-15` names, as noon UTC that day (it falls on that day in nearly every zone);
    /// nil for anything else, or a day that is not a plausible one for a parcel to have left at `now`.
    private static func day(_ value: JSONValue?, now: Date) -> Date? {
        guard let text = value?.stringValue else { return nil }
        let digits = text.utf8.filter { $0 != UInt8(ascii: "-") }
        guard digits.count == 8, text.utf8.count == 8 || text.utf8.count == 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        let s = String(decoding: digits, as: UTF8.self)
        let stamp = "\(s.prefix(4))-\(s.dropFirst(4).prefix(2))-\(s.suffix(2))T12:00:00Z"
        guard let date = RFC3339.parseDateTime(stamp), TrackingEvent.isPlausibleOccurrence(date, now: now) else { return nil }
        return date
    }
}
