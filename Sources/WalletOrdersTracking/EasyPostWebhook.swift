import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// EasyPost's webhook: its signature, and the tracking event one of its Events reports.
///
/// A request's body is an Event (`"object": "Event"`), `description` naming what it is about (`tracker.updated`) and
/// `result` holding the object itself. Only `tracker.created` and `tracker.updated` Events, whose result is a
/// Tracker, report a tracking event; batches, insurance, payments, refunds, reports and the rest report none.
///
/// The event takes its id from the Event's `id` (`evt_…`), which EasyPost keeps when it sends the Event again; its
/// parcel from the Tracker's `tracking_code` and `carrier`; its time from the latest of `tracking_details`; its words
/// from that detail's `message`; its estimate from `est_delivery_date`.
///
/// Its status from the Tracker's `status`:
///
/// | status                 | status                 |
/// |------------------------|------------------------|
/// | `pre_transit`          | `info_received`        |
/// | `in_transit`           | `in_transit`           |
/// | `out_for_delivery`     | `out_for_delivery`     |
/// | `available_for_pickup` | `available_for_pickup` |
/// | `delivered`            | `delivered`            |
/// | `return_to_sender`     | `returned_to_sender`   |
/// | `failure`              | `exception`            |
/// | `cancelled`            | `cancelled`            |
///
/// `unknown` (the carrier has said nothing yet), `error` (EasyPost could not get the carrier's tracking) and any
/// status EasyPost adds later say nothing about where the parcel is: such an Event reports no event.
enum EasyPostWebhook {
    /// The header EasyPost signs its requests in, when the webhook was given a secret.
    static let signatureHeader = "x-hmac-signature"

    /// What EasyPost sends in the header for `body`: `hmac-sha256-hex=` and the hex of its HMAC-SHA256 under the
    /// UTF-8 bytes of the secret in Unicode's NFKD form, as EasyPost's client libraries check it (so `é` typed
    /// precomposed or not signs alike).
    static func signature(of body: [UInt8], secret: String) -> String {
        let key = Array(secret.decomposedStringWithCompatibilityMapping.utf8)
        return "hmac-sha256-hex=" + HMACSHA256.code(key: key, message: body).map { String(format: "%02x", $0) }.joined()
    }

    /// The status a Tracker's `status` puts a parcel in, as the table above maps them; nil for none.
    static func status(_ status: String) -> TrackingStatus? {
        switch status {
        case "pre_transit": .infoReceived
        case "in_transit": .inTransit
        case "out_for_delivery": .outForDelivery
        case "available_for_pickup": .availableForPickup
        case "delivered": .delivered
        case "return_to_sender": .returnedToSender
        case "failure": .exception
        case "cancelled": .cancelled
        default: nil
        }
    }

    /// The events a signed request's body reports: one for a Tracker's Event, none for any other or for a Tracker that
    /// says nothing about where the parcel is.
    static func events(in payload: JSONValue) throws(TrackingWebhookError) -> [TrackingEvent] {
        guard let event = payload.objectValue, event["object"]?.stringValue == "Event" else {
            throw .unreadable("an EasyPost webhook is an Event object (\"object\": \"Event\")")
        }
        guard let kind = event["description"]?.stringValue else { throw .unreadable("description is missing") }
        guard kind.hasPrefix("tracker.") else { return [] }
        let id = try PayloadField.requiredIdentifier(event["id"], at: "id")
        guard let tracker = event["result"]?.objectValue, tracker["object"]?.stringValue == "Tracker" else {
            throw .unreadable("result of a \(kind) Event must be a Tracker")
        }
        let number = try PayloadField.requiredIdentifier(tracker["tracking_code"], at: "result.tracking_code")
        let carrier = try PayloadField.identifier(tracker["carrier"], at: "result.carrier")
        guard let word = tracker["status"]?.stringValue else { throw .unreadable("result.status is missing") }
        guard let status = status(word) else { return [] }
        // EasyPost lists tracking details oldest first.
        let latest = tracker["tracking_details"]?.arrayValue?.last?.objectValue ?? [:]
        // EasyPost gives a detail's time in its location's zone when it knows the location, and in UTC otherwise.
        let occurredAt =
            PayloadField.instantReadingUTC(latest["datetime"]) ?? PayloadField.instantReadingUTC(tracker["updated_at"])
            ?? PayloadField.instantReadingUTC(event["created_at"])
        guard let occurredAt else {
            throw .unreadable("no time in the Tracker: neither result.tracking_details nor result.updated_at holds one")
        }
        return [
            TrackingEvent(
                id: id,
                trackingNumber: number,
                carrier: carrier,
                status: status,
                occurredAt: occurredAt,
                estimatedDeliveryAt: estimatedDelivery(tracker["est_delivery_date"]),
                description: PayloadField.description(latest["message"])
            )
        ]
    }

    /// The estimate of delivery. EasyPost writes a carrier's estimate of a day, with no time, as midnight UTC that
    /// day, which would show the evening before across the Americas: such an estimate is taken as the day it names.
    private static func estimatedDelivery(_ value: JSONValue?) -> Date? {
        guard let at = PayloadField.instantReadingUTC(value) else { return nil }
        guard at.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0 else { return at }
        // Noon UTC, as PayloadField.day places a day.
        return at.addingTimeInterval(43_200)
    }
}
