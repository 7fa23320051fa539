import Foundation
import WalletOrdersModel

/// One step in a simulated device's transcript: a push, a request to the web service and its answer, a verdict on a
/// package. Its JSON shape is stable for pages and scripts that show it:
/// `{"kind", "time", "method", "url", "status", "milliseconds", "detail"}`, absent members left out,
/// `time` in RFC 3339 with milliseconds. No event carries an authentication token.
public struct DeviceEvent: Codable, Sendable, Equatable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A push for the device's token arrived; `detail` names the topic.
        case push
        /// `POST …/registrations/{type}/{id}`: registering for an order's updates.
        case register
        /// `DELETE …/registrations/{type}/{id}`: unregistering.
        case unregister
        /// `GET …/registrations/{type}?ordersModifiedSince=`: asking which orders changed.
        case list
        /// `GET /v1/orders/{type}/{id}`: fetching an order's package, conditionally once the device holds one.
        case fetch
        /// `GET` of a `.order` file from a link (a "Track with Wallet" download).
        case download
        /// `POST /v1/log`: telling the web service what went wrong.
        case log
        /// A package passed Wallet's checks and is the version the device now holds.
        case verified
        /// A package or an answer was refused; `detail` says why.
        case refused
        /// An order was added to the device.
        case added
        /// An order was removed from the device.
        case removed
    }

    public let kind: Kind
    public let time: Date
    /// For requests: the method, the URL, the status (nil when no answer came) and how long the exchange took.
    public let method: String?
    public let url: String?
    public let status: Int?
    public let milliseconds: Double?
    /// A sentence about the step: the topic of a push, what a listing named, a package's size, why it was refused.
    public let detail: String?

    public init(
        kind: Kind,
        time: Date = Date(),
        method: String? = nil,
        url: String? = nil,
        status: Int? = nil,
        milliseconds: Double? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.time = time
        self.method = method
        self.url = url
        self.status = status
        self.milliseconds = milliseconds
        self.detail = detail
    }

    /// Whether this is an HTTP exchange with the web service (or a download).
    public var isRequest: Bool { method != nil }

    private enum CodingKeys: String, CodingKey {
        case kind, time, method, url, status, milliseconds, detail
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        let text = try container.decode(String.self, forKey: .time)
        guard let time = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "not an RFC 3339 time: \(text)")
        }
        self.time = time
        method = try container.decodeIfPresent(String.self, forKey: .method)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        milliseconds = try container.decodeIfPresent(Double.self, forKey: .milliseconds)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        // Whatever the encoder's date strategy, the time is the same text.
        try container.encode(Self.timestamp(time), forKey: .time)
        try container.encodeIfPresent(method, forKey: .method)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(milliseconds, forKey: .milliseconds)
        try container.encodeIfPresent(detail, forKey: .detail)
    }

    /// `time` in UTC with milliseconds: `2026-11-22T10:15:30.123Z`.
    static func timestamp(_ time: Date) -> String {
        let seconds = time.timeIntervalSince1970
        let milliseconds = Int(((seconds - seconds.rounded(.down)) * 1_000).rounded(.down))
        let whole = RFC3339.format(time).dropLast()
        let fraction = String(milliseconds)
        return "\(whole).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)Z"
    }

    /// One line for a person: `list GET http://…?ordersModifiedSince=3 → 200 in 12.3 ms: changed A-1001`.
    public var description: String {
        var line = kind.rawValue
        if let method, let url { line += " \(method) \(url)" }
        if isRequest { line += " → " + (status.map(String.init) ?? "no answer") }
        if let milliseconds { line += " in " + String(format: "%.1f", milliseconds) + " ms" }
        if let detail { line += (isRequest ? ": " : " ") + detail }
        return line
    }
}
