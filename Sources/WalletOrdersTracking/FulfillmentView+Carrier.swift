import Foundation
import WalletOrdersModel

/// What a tracking number alone tells a fulfillment: its carrier and the carrier's tracking page.
extension FulfillmentView {
    /// Fills in the carrier and tracking URL of a shipping fulfillment from its `trackingNumber`, when
    /// `Carrier.recognizing(trackingNumber:)` knows the number: `carrier` and `trackingURL` both when the shop gave
    /// neither; `trackingURL` alone when the shop gave a `carrier` that names the recognised one (`Carrier.isNamed(_:)`)
    /// and no URL. Nothing the shop gave is replaced: a `carrier` naming another carrier, any `trackingURL`, or
    /// a value that is not a string leave the fulfillment as it is, and so does a pickup. Whether anything changed.
    @discardableResult
    public mutating func fillCarrierFromTrackingNumber() -> Bool {
        guard !isPickup, let number = trackingNumber, let recognized = Carrier.recognizing(trackingNumber: number),
            let url = recognized.trackingURL(for: number)
        else { return false }
        switch (gives("carrier"), gives("trackingURL")) {
        case (false, false):
            carrier = recognized.name
            trackingURL = url.absoluteString
            return true
        case (true, false):
            guard let given = carrier, recognized.isNamed(given) else { return false }
            trackingURL = url.absoluteString
            return true
        case (_, true):
            return false
        }
    }

    /// Whether the fulfillment holds `key` with a value (a JSON null is none: a merge patch's null removes a member).
    private func gives(_ key: String) -> Bool {
        switch fields[key] {
        case nil, .null?: false
        default: true
        }
    }
}
