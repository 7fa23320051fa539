import Foundation
import WalletOrdersModel

/// HTTP dates as a server must send them: IMF-fixdate (RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Stricter than the server's own reader, which also takes epoch seconds from clients that send them in
/// `If-Modified-Since`: the kit judges what a server sends, and a sender must generate IMF-fixdate.
enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `text` names when it is an IMF-fixdate; nil otherwise.
    static func parse(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
            parts[1].count == 2, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3]), parts[5] == "GMT"
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard parts[4].count == 8, time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2])
        else { return nil }
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month + 1, day, hour, minute, second)
        return RFC3339.parse(text)
    }
}
