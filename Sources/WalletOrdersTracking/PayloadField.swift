import Foundation
import WalletOrdersModel

/// Reading one field of a provider's payload into what a tracking event holds, the same way for every provider:
/// identifiers whole or not at all, carriers' words cleaned and cut, times with or without an offset.
enum PayloadField {
    /// The identifier at `path` (an event id, a tracking number, a carrier): nil when absent, null or empty. One longer
    /// than `TrackingEvent.maxIdentifierLength` or with control characters is refused, not cut or cleaned: changed, it
    /// could name another parcel.
    static func identifier(_ value: JSONValue?, at path: String) throws(TrackingWebhookError) -> String? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let text)?:
            if text.isEmpty { return nil }
            guard text.count <= TrackingEvent.maxIdentifierLength, !text.unicodeScalars.contains(where: isControl) else {
                throw .unreadable("\(path) must be at most \(TrackingEvent.maxIdentifierLength) characters, without control characters")
            }
            return text
        case let other?:
            throw .unreadable("\(path) must be a string, not \(other.typeName)")
        }
    }

    /// The identifier at `path`, which every payload of its kind has.
    static func requiredIdentifier(_ value: JSONValue?, at path: String) throws(TrackingWebhookError) -> String {
        guard let identifier = try identifier(value, at: path) else { throw .unreadable("\(path) is missing") }
        return identifier
    }

    /// A carrier's message as Wallet shows it under the status: line breaks, tabs and other control characters as
    /// single spaces, cut to `TrackingEvent.maxDescriptionLength` characters; nil when nothing is left. Carriers write
    /// long and messy messages, and a message is worth showing even when it is not tidy.
    static func description(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue else { return nil }
        let spaced = String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
        let words = spaced.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return words.isEmpty ? nil : String(words.prefix(TrackingEvent.maxDescriptionLength))
    }

    /// The instant a date-time with an offset names (RFC 3339, a space allowed for the `T`); nil for one without.
    static func instant(_ value: JSONValue?) -> Date? {
        value?.stringValue.flatMap(RFC3339.parse)
    }

    /// The instant a count of unix seconds names (AfterShip's `ts`); nil for anything but a whole number Int64 holds.
    /// Any such count makes a Date (a Double holds ±2^63 seconds); whether it is a plausible one is checked later.
    static func instant(unixSeconds value: JSONValue?) -> Date? {
        guard let whole = value?.intValue, let seconds = Int64(exactly: whole) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// The instant a date-time names, one without an offset read as UTC: for a provider that documents its times
    /// as UTC unless they say otherwise.
    static func instantReadingUTC(_ value: JSONValue?) -> Date? {
        guard let text = value?.stringValue else { return nil }
        return RFC3339.parse(text) ?? RFC3339.parse(text + "Z")
    }

    /// The calendar day of `2026-11-25`, or of a local time on it without an offset (`2026-11-25T14:00:00`), as noon
    /// UTC that day: the one instant that falls on that day in every zone from UTC−11 to UTC+11, for a day whose time
    /// zone the provider does not give. Midnight UTC would show the day before across the Americas.
    static func day(_ value: JSONValue?) -> Date? {
        guard let text = value?.stringValue, text.utf8.count >= 10 else { return nil }
        let date = String(decoding: text.utf8.prefix(10), as: UTF8.self)
        let rest = text.utf8.dropFirst(10)
        // Anything after the date must be a local time; one with an offset is an instant, not a day.
        guard rest.isEmpty || RFC3339.parse(text + "Z") != nil else { return nil }
        return RFC3339.parseDateTime(date + "T12:00:00Z")
    }

    /// The ISO 8601 duration from `start` to `end` in whole seconds (`PT2H`, `PT1H30M`); nil unless `end` is later.
    static func duration(from start: Date, to end: Date) -> String? {
        // Checked: instants from a payload may be anything, and so may the seconds between them.
        guard let seconds = Int(exactly: end.timeIntervalSince(start).rounded()), seconds > 0 else { return nil }
        let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        return "PT" + (hours > 0 ? "\(hours)H" : "") + (minutes > 0 ? "\(minutes)M" : "") + (rest > 0 ? "\(rest)S" : "")
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
