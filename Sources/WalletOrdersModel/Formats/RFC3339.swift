import Foundation

/// RFC 3339 timestamps, the form order.json uses for every date.
public enum RFC3339 {
    /// Parses `2026-11-22T10:15:30Z`, `2026-11-22T10:15:30.250+01:00` and the like; nil for anything else.
    /// A space may stand for the `T`, as RFC 3339 allows applications to read.
    public static func parse(_ text: String) -> Date? {
        parse(text, separators: "Tt ")
    }

    /// Parses an RFC 3339 `date-time` exactly as its grammar (section 5.6) writes it: `T` (or `t`) between date and
    /// time. This is what order.json's dates must be, and the `date-time` pattern of Sources/WalletOrdersSchemas/order.schema.json.
    public static func parseDateTime(_ text: String) -> Date? {
        parse(text, separators: "Tt")
    }

    private static func parse(_ text: String, separators: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect(separators), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if expect("Zz") {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count, (1...12).contains(month), hour < 24, minute < 60, second <= 60,
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The instants `format` writes as they are: from `0000-01-01T00:00:00Z` to `9999-12-31T23:59:59Z`, every time a
    /// four-digit year can name.
    public static let formattable = Date(timeIntervalSince1970: -62_167_219_200)...Date(timeIntervalSince1970: 253_402_300_799)

    /// `date` in UTC at whole-second resolution: `2026-11-22T10:15:30Z`. Total: an instant outside `formattable` is
    /// written as its nearer end, and one that is not a number (NaN) as the earliest, so that no date, however it was
    /// made, stops the process.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let (earliest, latest) = (formattable.lowerBound.timeIntervalSince1970, formattable.upperBound.timeIntervalSince1970)
        // NaN compares false with everything, so it is taken apart before the bounds.
        let total = Int(seconds.isNaN ? earliest : min(max(seconds, earliest), latest))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):"
            + "\(pad(secondsOfDay % 3600 / 60, 2)):\(pad(secondsOfDay % 60, 2))Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm: exact for the proleptic Gregorian calendar, no Calendar needed.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
