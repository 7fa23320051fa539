import Foundation
import WalletOrdersModel
import WalletOrdersTracking

/// Reading one field of a shop's payload into what a Wallet order holds, the same way for every platform: identifiers
/// whole or not at all, people's and products' words cleaned and cut, links only when Wallet can open them safely,
/// instants only when they are plausible. Nothing here traps, whatever the payload holds.
enum ShopField {
    /// The longest identifier taken (an order's, a fulfillment's, a line item's): `Identifier.maxLength`.
    static let maxIdentifierLength = Identifier.maxLength
    /// Limits Apple's fields have, as the validator counts them (Unicode scalars).
    static let maxName = 256
    static let maxURL = 2_048
    static let maxDescription = TrackingEvent.maxDescriptionLength

    /// An identifier: a string of letters, digits and `.` `-` `_` `:` `~` (what an order identifier may hold, so the
    /// caller can put it in one), or a whole number; nil for anything else. Never cut: changed, it names another order.
    static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: return Identifier.isValid(text) ? text : nil
        case .int(let number)? where number >= 0: return String(number)
        default: return nil
        }
    }

    /// A whole number, when the value is one (a JSON number, or a string of digits as some platforms send counts).
    static func integer(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let number)?: return number
        case .double(let number)? where number.rounded() == number && abs(number) < 1e15: return Int(number)
        case .string(let text)? where text.utf8.count <= 18 && !text.isEmpty && text.utf8.allSatisfy(isDigit):
            return Int(text)
        default: return nil
        }
    }

    /// A count of items: a whole number from 1 to a million (a larger one is no order Wallet should show).
    static func quantity(_ value: JSONValue?) -> Int? {
        guard let count = integer(value), (1...1_000_000).contains(count) else { return nil }
        return count
    }

    /// A parcel's tracking number, at most as long as the tracking events take one (so that carriers' events find it).
    static func trackingNumber(_ value: JSONValue?) -> String? {
        token(value, max: TrackingEvent.maxIdentifierLength)
    }

    /// Text for people to read (a title, a name, a carrier's message): control characters as spaces, runs of white
    /// space as one, cut to `max` Unicode scalars at a character boundary; nil when nothing is left.
    static func text(_ value: JSONValue?, max: Int = maxName) -> String? {
        guard let raw = value?.stringValue else { return nil }
        // Scanning a huge string costs; nobody reads more than a few times the limit.
        let bounded = raw.unicodeScalars.count > max * 4 ? String(String.UnicodeScalarView(raw.unicodeScalars.prefix(max * 4))) : raw
        let spaced = String(String.UnicodeScalarView(bounded.unicodeScalars.map { isControl($0) ? " " : $0 }))
        let words = spaced.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        var cut = String(words.prefix(max))
        while cut.unicodeScalars.count > max { cut.removeLast() }
        return cut.isEmpty ? nil : cut
    }

    /// A value that must be kept whole (an email address, a phone number, a tracking number, a SKU): trimmed, at
    /// most `max` scalars and without control characters, or nil.
    static func token(_ value: JSONValue?, max: Int = maxName) -> String? {
        switch value {
        case .string(let raw)?:
            let text = raw.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text.unicodeScalars.count <= max, !text.unicodeScalars.contains(where: isControl) else { return nil }
            return text
        case .int(let number)?:
            return String(number)
        default:
            return nil
        }
    }

    /// An `https` link Wallet may open: an absolute URL with a host, no spaces or control characters, at most
    /// `maxURL` long. Plain http is dropped, not upgraded: a tracking page that is not https is not worth a warning.
    static func httpsURL(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue else { return nil }
        return isHTTPSURL(text) ? text : nil
    }

    /// Whether `text` is an `https` URL as `httpsURL(_:)` takes one.
    static func isHTTPSURL(_ text: String) -> Bool {
        guard text.utf8.count <= maxURL, text.lowercased().hasPrefix("https://"),
            !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || isControl($0) })
        else { return false }
        let rest = text.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        guard authority.filter({ $0 == "@" }).count <= 1, let first = host.first, first != ":" else { return false }
        // An IPv6 literal, or a name with an optional numeric port.
        if first == "[" { return host.contains("]") }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return false }
        return parts.count == 1 || (!parts[1].isEmpty && parts[1].utf8.allSatisfy(isDigit))
    }

    /// The instant an RFC 3339 date-time names, when it could be when something happened at `now` (not before 2000, at
    /// most three days ahead: `TrackingEvent.isPlausibleOccurrence`).
    static func occurrence(_ value: JSONValue?, now: Date) -> Date? {
        guard let text = value?.stringValue, text.utf8.count <= 64, let date = RFC3339.parse(text) else { return nil }
        return TrackingEvent.isPlausibleOccurrence(date, now: now) ? date : nil
    }

    /// The instant a date-time written without an offset names, read as UTC (WooCommerce's `…_gmt` fields), when
    /// plausible as an occurrence.
    static func occurrenceReadingUTC(_ value: JSONValue?, now: Date) -> Date? {
        guard let text = value?.stringValue, text.utf8.count <= 64 else { return nil }
        guard let date = RFC3339.parse(text) ?? RFC3339.parse(text + "Z") else { return nil }
        return TrackingEvent.isPlausibleOccurrence(date, now: now) ? date : nil
    }

    /// The instant a count of unix seconds names (a number or a string of digits), when plausible as an occurrence.
    static func occurrence(unixSeconds value: JSONValue?, now: Date) -> Date? {
        guard let seconds = integer(value), seconds > -(1 << 40), seconds < 1 << 40 else { return nil }
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        return TrackingEvent.isPlausibleOccurrence(date, now: now) ? date : nil
    }

    /// The instant a delivery is expected, when plausible at `now` (not before 2000, at most a year ahead).
    static func expectedDelivery(_ value: JSONValue?, now: Date) -> Date? {
        guard let text = value?.stringValue, text.utf8.count <= 64, let date = RFC3339.parse(text) else { return nil }
        return TrackingEvent.isPlausibleDelivery(date, now: now) ? date : nil
    }

    /// Whether `value` is anything but absent or null (Shopify's `cancelled_at` is null until an order is cancelled).
    static func isSet(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: false
        case .string(let text)?: !text.isEmpty
        default: true
        }
    }

    /// `value` with case, spaces and punctuation set aside, for comparing platforms' names ("Apple Pay", `apple_pay`).
    static func key(_ value: String) -> String {
        String(value.prefix(256).lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// The array at `value`, at most `limit` elements of it: payloads may hold any number, Wallet shows a few.
    static func array(_ value: JSONValue?, limit: Int) -> ArraySlice<JSONValue> {
        (value?.arrayValue ?? []).prefix(limit)
    }

    /// Control characters, line and paragraph separators, and the bidirectional overrides that make text read
    /// otherwise than it is stored; joiners stay, as emoji need them.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
