import Foundation
import WalletOrdersModel

/// One thing a carrier said about one parcel, as a logistics partner, a merchant or a carrier aggregator reports
/// it: which parcel (its tracking number, and its carrier when known), what happened and when.
public struct TrackingEvent: Sendable, Equatable {
    /// The sender's own id for the event: a second event with the same id from the same sender is a duplicate.
    public var id: String
    public var trackingNumber: String
    /// The carrier's name as the sender spells it; nil matches a parcel of any carrier.
    public var carrier: String?
    public var status: TrackingStatus
    /// When it happened at the carrier, not when it was sent: an event older than what an order shows never moves
    /// it back.
    public var occurredAt: Date
    public var estimatedDeliveryAt: Date?
    /// An ISO 8601 duration (`PT2H`): the delivery window that starts at `estimatedDeliveryAt`.
    public var estimatedDeliveryWindowDuration: String?
    /// The carrier's words for it ("Arrived at the Leipzig hub"), shown under the status.
    public var description: String?

    public init(
        id: String,
        trackingNumber: String,
        carrier: String? = nil,
        status: TrackingStatus,
        occurredAt: Date,
        estimatedDeliveryAt: Date? = nil,
        estimatedDeliveryWindowDuration: String? = nil,
        description: String? = nil
    ) {
        self.id = id
        self.trackingNumber = trackingNumber
        self.carrier = carrier
        self.status = status
        self.occurredAt = occurredAt
        self.estimatedDeliveryAt = estimatedDeliveryAt
        self.estimatedDeliveryWindowDuration = estimatedDeliveryWindowDuration
        self.description = description
    }

    /// The longest event id, tracking number and carrier name taken.
    public static let maxIdentifierLength = 200
    /// The longest description taken; a longer one is cut, not refused (carriers write long ones).
    public static let maxDescriptionLength = 500

    /// Whether `carrier` names the carrier this event names: once case, spaces and punctuation are set aside, one
    /// starts with the other ("DHL Express", "dhl-express" and an aggregator's slug `dhl`); any carrier when either
    /// names none. The tracking number decides; the carrier only tells apart two carriers' parcels with one number.
    public func matches(carrier other: String?) -> Bool {
        guard let carrier, let other else { return true }
        let (mine, theirs) = (Self.carrierKey(carrier), Self.carrierKey(other))
        guard !mine.isEmpty, !theirs.isEmpty else { return true }
        return mine.hasPrefix(theirs) || theirs.hasPrefix(mine)
    }

    /// A carrier's name with case, spaces and punctuation set aside.
    public static func carrierKey(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
}

extension TrackingEvent {
    /// The event a JSON object of the tracking events API describes, or every problem with it, their paths under
    /// `path` (`events[3]`). `now` is the service's clock: the event's instants must fall in the windows
    /// `instantProblems(now:at:)` checks.
    public static func decode(_ value: JSONValue, at path: String, now: Date) -> Result<TrackingEvent, TrackingEventProblems> {
        guard let object = value.objectValue else {
            return .failure(TrackingEventProblems([OrderProblem(path: path, message: "must be an object, not \(value.typeName)")]))
        }
        var problems: [OrderProblem] = []
        func problem(_ field: String, _ message: String) {
            problems.append(OrderProblem(path: "\(path).\(field)", message: message))
        }
        func text(_ field: String, required: Bool, max: Int) -> String? {
            switch object[field] {
            case nil, .null?:
                if required { problem(field, "is required") }
                return nil
            case .string(let text)?:
                if text.isEmpty || text.count > max || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    problem(field, "must be 1 to \(max) characters, without control characters")
                    return nil
                }
                return text
            case let other?:
                problem(field, "must be a string, not \(other.typeName)")
                return nil
            }
        }
        func date(_ field: String, required: Bool) -> Date? {
            guard let text = text(field, required: required, max: 64) else { return nil }
            guard let date = RFC3339.parseDateTime(text) else {
                problem(field, "must be an RFC 3339 date-time with an offset, e.g. 2026-11-25T14:30:00Z")
                return nil
            }
            return date
        }
        let known: Set = [
            "id", "trackingNumber", "carrier", "status", "occurredAt", "estimatedDeliveryAt",
            "estimatedDeliveryWindowDuration", "description",
        ]
        for field in object.keys.sorted() where !known.contains(field) { problem(field, "is not a field of a tracking event") }
        let id = text("id", required: true, max: maxIdentifierLength)
        let number = text("trackingNumber", required: true, max: maxIdentifierLength)
        let carrier = text("carrier", required: false, max: maxIdentifierLength)
        var status: TrackingStatus?
        if let word = text("status", required: true, max: 64) {
            status = TrackingStatus(rawValue: word)
            if status == nil { problem("status", "\"\(word)\" is not one of \(TrackingStatus.vocabulary)") }
        }
        let occurredAt = date("occurredAt", required: true)
        let estimated = date("estimatedDeliveryAt", required: false)
        let window = text("estimatedDeliveryWindowDuration", required: false, max: 64)
        if let window, !ISO8601Duration.isValid(window) {
            problem("estimatedDeliveryWindowDuration", "must be an ISO 8601 duration, e.g. PT2H")
        }
        let description = text("description", required: false, max: .max)
        guard problems.isEmpty, let id, let number, let status, let occurredAt else {
            return .failure(TrackingEventProblems(problems))
        }
        let event = TrackingEvent(
            id: id,
            trackingNumber: number,
            carrier: carrier,
            status: status,
            occurredAt: occurredAt,
            estimatedDeliveryAt: estimated,
            estimatedDeliveryWindowDuration: window,
            description: description.map { String($0.prefix(maxDescriptionLength)) }
        )
        let outside = event.instantProblems(now: now, at: path)
        return outside.isEmpty ? .success(event) : .failure(TrackingEventProblems(outside))
    }
}

/// Why an event was not taken: every problem found in it.
public struct TrackingEventProblems: Error, Sendable, Equatable {
    public let problems: [OrderProblem]

    public init(_ problems: [OrderProblem]) {
        self.problems = problems
    }
}

/// As the service keeps an event until an order holds its tracking number: dates as the encoder's default.
extension TrackingEvent: Codable {}
