import Foundation
import WalletOrdersModel

/// HTTP dates (RFC 9110 IMF-fixdate), as `Last-Modified` and `If-Modified-Since` carry them.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// What `Last-Modified` says of a version written at `updatedAt`: never later than the response's `Date` (RFC 9110,
    /// section 8.8.2.1, which has the server send the message's date instead).
    ///
    /// `updatedAt` is stamped by the service's clock (the store's), which every instance reads alike, and Hummingbird
    /// writes `Date` from a copy of this host's clock that it renews once a second: right after an update `Date` may
    /// be a second behind `updatedAt`. The bound is the service's clock two seconds ago, the same on every instance so
    /// that `Last-Modified` never goes back from one to another. `If-Modified-Since` is still compared with the real
    /// `updatedAt`, so no update goes unseen; a device that fetched within two seconds of an update fetches the
    /// package once more.
    static func lastModified(_ updatedAt: Date, serviceNow: Date) -> String {
        format(min(updatedAt, serviceNow.addingTimeInterval(-2)))
    }

    /// `Sun, 22 Nov 2026 10:15:30 GMT`.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Written as bytes: every fetch sends one, and string interpolation showed in its profile.
        var text: [UInt8] = []
        text.reserveCapacity(29)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
        }
        text += days[Int(parts.tm_wday)].utf8
        text += ", ".utf8
        digits(parts.tm_mday, 2)
        text.append(UInt8(ascii: " "))
        text += months[Int(parts.tm_mon)].utf8
        text.append(UInt8(ascii: " "))
        digits(parts.tm_year + 1900, 4)
        text.append(UInt8(ascii: " "))
        digits(parts.tm_hour, 2)
        text.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        text.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        text += " GMT".utf8
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads an IMF-fixdate, or plain epoch seconds as some HTTP libraries send; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0 { return Date(timeIntervalSince1970: Double(seconds)) }
        let parts = trimmed.split(separator: " ")
        // IMF-fixdate ends in GMT; RFC 2822 dates as `date -R` prints them end in +0000, which means the same.
        guard parts.count == 6, parts[0].hasSuffix(","), ["GMT", "UTC", "+0000"].contains(parts[5]),
            let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, monthIndex + 1, day, time[0], time[1], time[2])
        return RFC3339.parse(text)
    }
}
