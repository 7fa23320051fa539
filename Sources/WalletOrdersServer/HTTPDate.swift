import Foundation
import WalletOrdersModel

/// HTTP dates (RFC 9110 IMF-fixdate), as `Last-Modified` and `If-Modified-Since` carry them.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 22 Nov 2026 10:15:30 GMT`.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Reads an IMF-fixdate, or plain epoch seconds as some HTTP libraries send; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0 { return Date(timeIntervalSince1970: Double(seconds)) }
        let parts = trimmed.split(separator: " ")
        // IMF-fixdate ends in GMT; RFC 2822 dates as `date -R` prints them end in +0000, which means the same.
        guard parts.count == 6, parts[0].hasSuffix(","), ["GMT", "UTC", "+0000"].contains(parts[5]),
              let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, monthIndex + 1, day, time[0], time[1], time[2])
        return RFC3339.parse(text)
    }
}
