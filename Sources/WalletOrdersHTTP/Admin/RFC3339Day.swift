import Foundation

/// A UTC day as `2026-11-26`, and back: the console's dates in forms and on charts.
enum RFC3339Day {
    static func format(_ day: Int64) -> String {
        formatter().string(from: Date(timeIntervalSince1970: TimeInterval(day) * 86_400))
    }

    /// The start of the day `text` names (`2026-11-26`, UTC); nil when it names none.
    static func start(of text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return formatter().date(from: text)
    }

    private static func formatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter
    }
}
