import Foundation
import WalletOrdersAPNSServer
import WalletOrdersDevice
import WalletOrdersModel

/// One line of the playground's transcript: a step of a simulated device (`DeviceEvent`'s fields) or a push the
/// local APNs answered (`kind` `apns`), with the `curl` command that makes the same request. Commands name secrets
/// by variables (`$TOKEN`, the order's authenticationToken; `$JWT`, an APNs provider token), never by value.
struct PlaygroundEntry: Sendable {
    let actor: String
    let kind: String
    let time: Date
    let method: String?
    let url: String?
    let status: Int?
    let milliseconds: Double?
    let detail: String?
    let curl: String?
    /// For a fetch answered 200: the version's `Last-Modified`.
    let lastModified: String?

    /// `heldLastModified`: the `Last-Modified` of the version the device held before this step, which a fetch
    /// sends back as `If-Modified-Since`.
    init(event: DeviceEvent, pushToken: String, heldLastModified: String?) {
        actor = "device"
        kind = event.kind.rawValue
        time = event.time
        method = event.method
        url = event.url
        status = event.status
        milliseconds = event.milliseconds
        detail = event.detail
        lastModified = Self.lastModified(in: event)
        curl = event.method.flatMap { method in
            event.url.map { Self.curl(event.kind, method, $0, pushToken: pushToken, heldLastModified: heldLastModified) }
        }
    }

    init(push record: Playground.PushRecord, apnsURL: String) {
        let push = record.push
        actor = "apns"
        kind = "apns"
        time = record.time
        method = "POST"
        url = "\(apnsURL)/3/device/\(push.deviceToken)"
        status = push.status
        milliseconds = nil
        lastModified = nil
        detail =
            "apns-topic \(push.topic), apns-push-type \(push.pushType ?? "-"), "
            + "apns-priority \(push.priority ?? "-"), body \(push.body)" + (push.reason.map { "; refused: \($0)" } ?? "")
        curl =
            "curl --http2 --cacert data/dev-keys/local-apns-ca.pem -X POST '\(apnsURL)/3/device/\(push.deviceToken)' "
            + "-H 'authorization: bearer $JWT' -H 'apns-topic: \(push.topic)' -H 'apns-push-type: background' "
            + "-H 'apns-priority: 5' -d '{}'"
    }

    private static func curl(
        _ kind: DeviceEvent.Kind,
        _ method: String,
        _ url: String,
        pushToken: String,
        heldLastModified: String?
    ) -> String {
        let token = "-H \"Authorization: AppleOrder $TOKEN\""
        switch kind {
        case .register:
            return "curl -i -X POST '\(url)' \(token) -H 'Content-Type: application/json' -d '{\"pushToken\": \"\(pushToken)\"}'"
        case .unregister:
            return "curl -i -X DELETE '\(url)' \(token)"
        case .fetch:
            return "curl -i '\(url)' \(token)"
                + (heldLastModified.map { " -H 'If-Modified-Since: \($0)'" } ?? "") + " -o order.order"
        case .log:
            return "curl -i -X POST '\(url)' -H 'Content-Type: application/json' -d '{\"logs\": [\"…\"]}'"
        default:
            return "curl -i -X \(method) '\(url)'"
        }
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "actor": .string(actor), "kind": .string(kind), "time": .string(Self.timestamp(time)),
            "epochMilliseconds": .int(Int((time.timeIntervalSince1970 * 1_000).rounded())),
        ]
        if let method { members["method"] = .string(method) }
        if let url { members["url"] = .string(url) }
        if let status { members["status"] = .int(status) }
        if let milliseconds { members["milliseconds"] = .string(String(format: "%.1f", milliseconds)) }
        if let detail { members["detail"] = .string(detail) }
        if let curl { members["curl"] = .string(curl) }
        return .object(members)
    }

    /// The `Last-Modified` a fetch's detail names (`7540 bytes, Last-Modified Mon, 23 Nov 2026 13:04:11 GMT`).
    static func lastModified(in event: DeviceEvent) -> String? {
        guard event.kind == .fetch, event.status == 200, let detail = event.detail,
            let range = detail.range(of: "Last-Modified ")
        else { return nil }
        return String(detail[range.upperBound...])
    }

    private static func timestamp(_ time: Date) -> String {
        let milliseconds = Int((time.timeIntervalSince1970 * 1_000).rounded(.down)) % 1_000
        let text = RFC3339.format(time).dropLast()
        return "\(text).\(String(format: "%03d", milliseconds))Z"
    }
}
