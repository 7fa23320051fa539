import Foundation
import WalletOrdersModel
import WalletOrdersPackage

/// An order roughly as Wallet shows it, from the signed package a device holds: merchant and logo, status, line
/// items with their images, the total, and each fulfillment's status and tracking, in one of the package's
/// localizations (string values that are keys of its `order.strings` are shown translated, as Wallet does).
struct OrderPreview {
    /// The package's files by path.
    let files: [String: Data]
    let order: JSONValue
    /// The localizations the package has (`en`, `fr`, …), sorted.
    let localizations: [String]

    init(package: Data) throws {
        var files: [String: Data] = [:]
        for entry in try ZipArchive.read(package) { files[entry.path] = entry.data }
        guard let data = files["order.json"] else { throw PreviewError("the package has no order.json") }
        self.files = files
        order = try JSONValue.parse(data)
        localizations = Set(
            files.keys.compactMap { path -> String? in
                guard let folder = path.split(separator: "/").first, folder.hasSuffix(".lproj"), path.contains("/") else { return nil }
                return String(folder.dropLast(".lproj".count))
            }
        ).sorted()
    }

    struct PreviewError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The preview as an HTML fragment in `localization` (the first one when nil or unknown).
    func html(localization requested: String?, version: Int) throws -> String {
        let localization = requested.flatMap { localizations.contains($0) ? $0 : nil } ?? localizations.first
        let strings =
            localization.flatMap { files["\($0).lproj/order.strings"] }
            .flatMap { try? StringsFile(data: $0).strings } ?? [:]
        func text(_ value: JSONValue?) -> String? {
            guard let value else { return nil }
            switch value {
            case .string(let string): return strings[string] ?? string
            case .int(let number): return String(number)
            case .double(let number): return String(number)
            default: return nil
            }
        }
        func amount(_ value: JSONValue?) -> String? {
            guard let value, let number = text(value["amount"]) else { return nil }
            return [number, text(value["currency"])].compactMap { $0 }.joined(separator: " ")
        }
        func image(_ name: JSONValue?) -> String? {
            guard let name = name?.stringValue else { return nil }
            let hasExtension =
                name.lowercased().hasSuffix(".png") || name.lowercased().hasSuffix(".jpg")
                || name.lowercased().hasSuffix(".jpeg")
            let names = hasExtension ? [name] : ["\(name)@2x.png", "\(name).png", "\(name)@3x.png"]
            // A top-level file overrides the localized ones.
            let candidates = names + names.map { "\(localization ?? "").lproj/\($0)" }
            guard let path = candidates.first(where: { files[$0] != nil }), let data = files[path] else { return nil }
            let type = path.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"
            return "data:\(type);base64,\(data.base64EncodedString())"
        }
        let merchant = order["merchant"]
        let lineItems: [[String: Any]] = (order["lineItems"]?.arrayValue ?? []).map { item in
            var values: [String: Any] = ["title": text(item["title"]) ?? "", "quantity": text(item["quantity"]) ?? "1"]
            if let subtitle = text(item["subtitle"]) { values["subtitle"] = subtitle }
            if let price = amount(item["price"]) { values["price"] = price }
            if let image = image(item["image"]) { values["image"] = image }
            return values
        }
        let fulfillments: [[String: Any]] = (order["fulfillments"]?.arrayValue ?? []).map { fulfillment in
            let status = fulfillment["status"]?.stringValue ?? ""
            var values: [String: Any] = [
                "type": fulfillment["fulfillmentType"]?.stringValue == "pickup" ? "Pickup" : "Shipping",
                "status": status, "statusLabel": Self.label(status),
            ]
            for key in ["carrier", "trackingNumber", "displayName", "estimatedDeliveryAt", "pickupAt"] {
                if let value = text(fulfillment[key]) { values[key] = value }
            }
            // Under its own name: Mustache would otherwise show the order's statusDescription for a fulfillment
            // that has none.
            if let value = text(fulfillment["statusDescription"]) { values["fulfillmentDescription"] = value }
            if let url = fulfillment["trackingURL"]?.stringValue, url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://") {
                values["trackingURL"] = url
            }
            return values
        }
        var context: [String: Any] = [
            "merchant": text(merchant?["displayName"]) ?? "",
            "status": order["status"]?.stringValue ?? "",
            "statusLabel": Self.label(order["status"]?.stringValue ?? ""),
            "lineItems": lineItems,
            "fulfillments": fulfillments,
            "version": "\(version)",
            "updatedAt": order["updatedAt"]?.stringValue ?? "",
            "localization": localization ?? "",
        ]
        if let logo = image(merchant?["logo"]) { context["logo"] = logo }
        if let number = text(order["orderNumber"]) { context["orderNumber"] = number }
        if let description = text(order["statusDescription"]) { context["statusDescription"] = description }
        if let total = amount(order["payment"]?["total"]) { context["total"] = total }
        if let status = order["payment"]?["status"]?.stringValue { context["paymentStatus"] = Self.label(status) }
        // Every {{value}} of the template is escaped for HTML: the order's text comes from the merchant's editor.
        return try PlaygroundAssets.loaded.get().preview.render(context)
    }

    /// `onTheWay` → `On the way`, as Wallet words a status.
    static func label(_ status: String) -> String {
        let known = [
            "open": "Open", "completed": "Completed", "cancelled": "Cancelled", "processing": "Processing",
            "onTheWay": "On the way", "outForDelivery": "Out for delivery", "delivered": "Delivered",
            "shipped": "Shipped", "issue": "Issue", "readyForPickup": "Ready for pickup",
            "pickedUp": "Picked up", "paid": "Paid", "pending": "Pending", "authorized": "Authorized",
            "refunded": "Refunded", "declined": "Declined", "voided": "Voided",
        ]
        return known[status] ?? status
    }
}
