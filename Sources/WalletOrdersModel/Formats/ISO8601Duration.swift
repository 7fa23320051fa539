/// ISO 8601-1 durations, the form of `estimatedDeliveryWindowDuration` and `pickupWindowDuration`: `PT30M`, `P1D`,
/// `P1DT12H`, `PT1H30M`, `PT0.5S`, `P2W`.
///
/// The grammar is ISO 8601-1's with the components in their fixed order (years, months, days, then `T` and hours,
/// minutes, seconds), at least one component, a `T` only before a time component, a decimal fraction on seconds
/// only, and weeks alone (`P2W`). It is the `duration` pattern of Sources/WalletOrdersSchemas/order.schema.json, letter for letter.
public enum ISO8601Duration {
    /// Whether `text` is a duration in that form.
    public static func isValid(_ text: String) -> Bool {
        var scanner = Scanner(Array(text.unicodeScalars))
        guard scanner.take("P") else { return false }
        // Weeks stand alone: P2W.
        var weeks = scanner
        if weeks.digits(), weeks.take("W"), weeks.atEnd { return true }

        var components = 0
        for designator in ["Y", "M", "D"] as [Unicode.Scalar] {
            var attempt = scanner
            if attempt.digits(), attempt.take(designator) {
                scanner = attempt
                components += 1
            }
        }
        if scanner.take("T") {
            var timeComponents = 0
            for designator in ["H", "M", "S"] as [Unicode.Scalar] {
                var attempt = scanner
                guard attempt.digits() else { continue }
                if designator == "S", attempt.take(".") || attempt.take(",") {
                    guard attempt.digits() else { continue }
                }
                if attempt.take(designator) {
                    scanner = attempt
                    timeComponents += 1
                }
            }
            guard timeComponents > 0 else { return false }
            components += timeComponents
        }
        return components > 0 && scanner.atEnd
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index == scalars.count }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard index < scalars.count, scalars[index] == scalar else { return false }
            index += 1
            return true
        }

        /// One or more ASCII digits.
        mutating func digits() -> Bool {
            let start = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            return index > start
        }
    }
}
