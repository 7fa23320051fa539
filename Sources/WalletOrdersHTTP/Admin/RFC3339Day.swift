import Foundation
import WalletOrdersModel

/// A UTC day as `2026-11-26`, and back: the console's dates in forms and on charts.
enum RFC3339Day {
    static func format(_ day: Int64) -> String {
        String(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(day) * 86_400)).prefix(10))
    }

    /// The start of the day `text` names (`2026-11-26`, UTC); nil when it names none.
    static func start(of text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return RFC3339.parse(text + "T00:00:00Z")
    }
}
