import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// AfterShip Tracking's webhook: its signature, and the tracking event one of its requests reports.
///
/// A request's body is `{"event", "event_id", "msg", "ts", …}`, `msg` being the tracking as AfterShip holds it. The
/// event takes its id from `event_id`, which AfterShip keeps when it sends an event again; its parcel from
/// `msg.tracking_number` and `msg.slug`; its time from the latest checkpoint; its words from that checkpoint's
/// `message`; its estimate from `msg.latest_estimated_delivery` (or the older `courier_estimated_delivery_date` and
/// `expected_delivery`).
///
/// Its status from the tracking's `tag`, and the `subtag` where that says more:
///
/// | tag                  | subtag                                                           | status                 |
/// |----------------------|------------------------------------------------------------------|------------------------|
/// | `InfoReceived`       |                                                                  | `info_received`        |
/// | `InTransit`          |                                                                  | `in_transit`           |
/// | `OutForDelivery`     |                                                                  | `out_for_delivery`     |
/// | `AvailableForPickup` |                                                                  | `available_for_pickup` |
/// | `AttemptFail`        |                                                                  | `failed_attempt`       |
/// | `Delivered`          | `Delivered_002` (picked up by the customer)                      | `picked_up`            |
/// | `Delivered`          | any other                                                        | `delivered`            |
/// | `Exception`          | `Exception_010`, `Exception_011` (returning, returned to sender) | `returned_to_sender`   |
/// | `Exception`          | `Exception_020` (shipment cancelled)                             | `cancelled`            |
/// | `Exception`          | any other                                                        | `exception`            |
///
/// `Pending` (no word from the carrier yet), `Expired` (AfterShip stopped asking the carrier) and any tag AfterShip
/// adds later say nothing about where the parcel is: such a request reports no event. So does any event but
/// `tracking_update` and `edd_revise` (`tracking_pending_time` is an alert to the merchant, not news of the parcel).
enum AfterShipWebhook {
    /// The header AfterShip Tracking signs its requests in.
    static let signatureHeader = "aftership-hmac-sha256"

    /// What AfterShip sends in the header for `body`: the base64 of its HMAC-SHA256 under the secret's UTF-8 bytes,
    /// the secret taken as the admin shows it.
    static func signature(of body: [UInt8], secret: String) -> String {
        Data(HMACSHA256.code(key: Array(secret.utf8), message: body)).base64EncodedString()
    }

    /// The status a tracking's tag and subtag put a parcel in, as the table above maps them; nil for none.
    static func status(tag: String, subtag: String?) -> TrackingStatus? {
        switch tag {
        case "InfoReceived": .infoReceived
        case "InTransit": .inTransit
        case "OutForDelivery": .outForDelivery
        case "AvailableForPickup": .availableForPickup
        case "AttemptFail": .failedAttempt
        case "Delivered": subtag == "Delivered_002" ? .pickedUp : .delivered
        case "Exception":
            switch subtag {
            case "Exception_010", "Exception_011": .returnedToSender
            case "Exception_020": .cancelled
            default: .exception
            }
        default: nil
        }
    }

    /// The events a signed request's body reports: one, or none when it says nothing about where the parcel is.
    static func events(in payload: JSONValue) throws(TrackingWebhookError) -> [TrackingEvent] {
        guard let root = payload.objectValue else {
            throw .unreadable("an AfterShip webhook is a JSON object, not \(payload.typeName)")
        }
        guard let kind = root["event"]?.stringValue else {
            throw .unreadable("event is missing: this is not an AfterShip Tracking webhook (Returns and Warranty ones are not taken)")
        }
        guard kind == "tracking_update" || kind == "edd_revise" else { return [] }
        let id = try PayloadField.requiredIdentifier(root["event_id"], at: "event_id")
        guard let tracking = root["msg"]?.objectValue else { throw .unreadable("msg, the tracking, is missing or not an object") }
        let number = try PayloadField.requiredIdentifier(tracking["tracking_number"], at: "msg.tracking_number")
        let carrier = try PayloadField.identifier(tracking["slug"], at: "msg.slug")
        guard let tag = tracking["tag"]?.stringValue else { throw .unreadable("msg.tag is missing") }
        guard let status = status(tag: tag, subtag: tracking["subtag"]?.stringValue) else { return [] }
        // AfterShip lists checkpoints oldest first.
        let latest = tracking["checkpoints"]?.arrayValue?.last?.objectValue ?? [:]
        guard let occurredAt = occurredAt(latest: latest, tracking: tracking, sentAt: root["ts"]) else {
            throw .unreadable("no time in the tracking: neither msg.checkpoints nor msg.updated_at nor ts holds one")
        }
        let estimate = estimatedDelivery(tracking)
        return [
            TrackingEvent(
                id: id,
                trackingNumber: number,
                carrier: carrier,
                status: status,
                occurredAt: occurredAt,
                estimatedDeliveryAt: estimate?.at,
                estimatedDeliveryWindowDuration: estimate?.window,
                description: PayloadField.description(latest["message"]) ?? PayloadField.description(tracking["subtag_message"])
            )
        ]
    }

    /// When the carrier reported the latest checkpoint. AfterShip writes `checkpoint_time` in the checkpoint's own time
    /// zone and often without its offset, so such a time names no instant; the checkpoint's `created_at` (when
    /// AfterShip recorded it, always UTC) stands in for it, then the tracking's `updated_at`, then the event's `ts`
    /// (unix seconds). Any of them may be absurd: the service checks the instant before it keeps the event.
    private static func occurredAt(latest: [String: JSONValue], tracking: [String: JSONValue], sentAt: JSONValue?) -> Date? {
        PayloadField.instant(latest["checkpoint_time"]) ?? PayloadField.instant(latest["created_at"])
            ?? PayloadField.instant(tracking["updated_at"]) ?? PayloadField.instant(unixSeconds: sentAt)
    }

    /// The latest estimate of delivery: a window when AfterShip gives a range of instants, else an instant, else the
    /// day it names (AfterShip's own and custom estimates are days, in the recipient's zone it does not give).
    private static func estimatedDelivery(_ tracking: [String: JSONValue]) -> (at: Date, window: String?)? {
        if let latest = tracking["latest_estimated_delivery"]?.objectValue {
            if let start = PayloadField.instant(latest["datetime_min"]), let end = PayloadField.instant(latest["datetime_max"]) {
                return (start, PayloadField.duration(from: start, to: end))
            }
            // Of a range of days, the last: the day by which the parcel should be there.
            for field in ["datetime", "datetime_max"] {
                if let at = PayloadField.instant(latest[field]) ?? PayloadField.day(latest[field]) { return (at, nil) }
            }
        }
        let courier = tracking["courier_estimated_delivery_date"]?.objectValue ?? [:]
        for value in [courier["estimated_delivery_date"], courier["estimated_delivery_date_max"], tracking["expected_delivery"]] {
            if let at = PayloadField.instant(value) ?? PayloadField.day(value) { return (at, nil) }
        }
        return nil
    }
}
