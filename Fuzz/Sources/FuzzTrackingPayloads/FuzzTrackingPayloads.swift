import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// The service's clock for every input: fixed, so that a finding reproduces.
private let now = Date(timeIntervalSince1970: 1_795_342_530)
private let secret = "whsec-fuzz-0123456789"
private let shipping: [String: JSONValue] = [
    "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
    "status": .string("processing"), "trackingNumber": .string("1Z999"), "lineItems": .array([]),
]
private let pickup: [String: JSONValue] = [
    "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("pickup-1"), "status": .string("processing"),
]

/// One input: any bytes, as the body of an AfterShip and of an EasyPost webhook (each signed as its provider signs),
/// as the tracking events API's body (`{"events": [...]}`) or one of its events, and as a tracking number whose
/// carrier is recognised (so is every event's).
///
/// Properties besides not crashing: an event the API decodes has its instants in the window; every event, whatever
/// its instants, applies to a shipping and a pickup fulfillment, and every date it writes there is an RFC 3339
/// date-time that reads back; an event in the window survives the round trip through the encoding the service keeps
/// it in, and applies after it as before. A recognised number has an https tracking page that ends with the number
/// as recognition reads it, and that number is recognised alike; filling a fulfillment from it writes the carrier's
/// name and page, changes nothing the second time, and never changes a fulfillment that names a carrier and a page.
func fuzzTrackingPayloads(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let body = Array(UnsafeBufferPointer(start: bytes, count: count))
    checkRecognition(of: String(decoding: body, as: UTF8.self))
    var events: [TrackingEvent] = []
    for provider in TrackingProvider.allCases {
        let headers = [provider.signatureHeader: provider.signature(of: body, secret: secret)]
        if let read = try? provider.events(body: body, headers: headers, secret: secret) { events += read }
    }
    if let value = try? JSONValue.parse(Data(body)) {
        for (index, item) in (value["events"]?.arrayValue ?? [value]).prefix(100).enumerated() {
            guard case .success(let event) = TrackingEvent.decode(item, at: "events[\(index)]", now: now) else { continue }
            precondition(event.instantProblems(now: now).isEmpty, "the API decoded an event outside the window")
            events.append(event)
        }
    }
    for event in events {
        check(event)
        checkRecognition(of: event.trackingNumber)
    }
    return 0
}

private func checkRecognition(of number: String) {
    var fulfillment = shipping
    fulfillment["trackingNumber"] = .string(number)
    var view = FulfillmentView(fulfillment)
    let filled = view.fillCarrierFromTrackingNumber()
    guard let carrier = Carrier.recognizing(trackingNumber: number) else {
        precondition(!filled, "a fulfillment was filled from a number no carrier was recognised by")
        return
    }
    guard let url = carrier.trackingURL(for: number), url.scheme == "https", let host = url.host, !host.isEmpty else {
        preconditionFailure("\(carrier.name) has no https tracking page for a number it was recognised by")
    }
    let normalized = String(number.unicodeScalars.filter { $0 != " " && $0 != "-" }).uppercased()
    precondition(url.absoluteString.hasSuffix(normalized), "the tracking page does not end with the number")
    precondition(Carrier.recognizing(trackingNumber: normalized) == carrier, "the normalised number is recognised otherwise")
    precondition(filled && view.carrier == carrier.name && view.trackingURL == url.absoluteString, "the fulfillment was not filled")
    precondition(!view.fillCarrierFromTrackingNumber(), "filling twice changed the fulfillment again")
    fulfillment["carrier"] = .string("Shop Carrier")
    fulfillment["trackingURL"] = .string("https://shop.example.com/track")
    var given = FulfillmentView(fulfillment)
    precondition(!given.fillCarrierFromTrackingNumber() && given.fields == fulfillment, "what the shop gave was changed")
}

private func check(_ event: TrackingEvent) {
    let inWindow = event.instantProblems(now: now).isEmpty
    for fulfillment in [shipping, pickup] {
        let applied = event.applied(to: FulfillmentView(fulfillment)).fields
        for field in ["shippedAt", "deliveredAt", "pickedUpAt", "estimatedDeliveryAt"] {
            guard let written = applied[field] else { continue }
            precondition(written.stringValue.flatMap(RFC3339.parseDateTime) != nil, "\(field) is not a date-time: \(written)")
        }
        precondition(applied["fulfillmentIdentifier"] == fulfillment["fulfillmentIdentifier"], "the fulfillment lost its identifier")
    }
    guard inWindow else { return }
    // As the service keeps an event until an order holds its tracking number.
    guard let kept = try? JSONEncoder().encode(event), let read = try? JSONDecoder().decode(TrackingEvent.self, from: kept) else {
        preconditionFailure("an event in the window does not survive the service's encoding")
    }
    precondition(read.instantProblems(now: now).isEmpty, "an event read back left the window")
    precondition(
        read.applied(to: FulfillmentView(shipping)).fields == event.applied(to: FulfillmentView(shipping)).fields,
        "an event read back applies differently"
    )
}
