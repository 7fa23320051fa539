import WalletOrdersModel

/// How a shop's fulfillments go into a Wallet order's: matched by `fulfillmentIdentifier`, the shop's fields laid over
/// the order's, what the shop does not say kept, and progress never moved back.
enum FulfillmentMerge {
    /// What a carrier said of a parcel: gone with the parcel when the shop changes the tracking number.
    private static let parcelFields: Set<String> = [
        "carrier", "trackingURL", "statusDescription", "estimatedDeliveryAt", "estimatedDeliveryWindowDuration", "deliveredAt",
        "shippedAt",
    ]

    /// `document` with `incoming` merged into its `fulfillments`; the document itself when nothing changes.
    static func merging(_ incoming: [FulfillmentView], into document: OrderDocument) -> OrderDocument {
        guard !incoming.isEmpty else { return document }
        var array = document["fulfillments"]?.arrayValue ?? []
        for fulfillment in incoming {
            guard let identifier = fulfillment.identifier else { continue }
            let index = array.firstIndex { $0.objectValue?["fulfillmentIdentifier"]?.stringValue == identifier }
            if let index, let existing = array[index].objectValue {
                array[index] = .object(merge(fulfillment.fields, over: existing))
            } else if index == nil {
                array.append(.object(fulfillment.fields))
            }
        }
        guard array != document["fulfillments"]?.arrayValue else { return document }
        var changed = document
        changed["fulfillments"] = .array(array)
        return changed
    }

    /// `existing` with the shop's `fields` laid over it. A new tracking number is a new parcel: what a carrier said of
    /// the old one goes. A new status takes the shop's description with it (or none), so that no carrier's words
    /// about an earlier step stay under it.
    static func merge(_ fields: [String: JSONValue], over existing: [String: JSONValue]) -> [String: JSONValue] {
        var merged = existing
        let sameParcel = fields["trackingNumber"] == nil || fields["trackingNumber"] == existing["trackingNumber"]
        if !sameParcel {
            for key in parcelFields { merged[key] = nil }
        }
        let status = fields["status"]?.stringValue
        let keepProgress = sameParcel && ShippingProgress.movesBack(from: existing["status"]?.stringValue, to: status)
        for (key, value) in fields where key != "statusDescription" {
            if keepProgress, key == "status" { continue }
            merged[key] = value
        }
        if !keepProgress, status == nil || status == existing["status"]?.stringValue {
            if let description = fields["statusDescription"] { merged["statusDescription"] = description }
        } else if !keepProgress {
            merged["statusDescription"] = fields["statusDescription"]
        }
        return merged
    }
}
