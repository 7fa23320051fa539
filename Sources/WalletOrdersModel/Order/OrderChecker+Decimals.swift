import Foundation

/// Decimal strings, as amounts and quantities are written.
extension OrderChecker {
    /// The longest decimal string accepted (an amount, a quantity): 32 characters hold any sum of money with digits
    /// to spare, and stay exact in Foundation's `Decimal` (38 digits), while a string of a megabyte is no number.
    static let maxDecimalLength = 32

    /// Why `text` is not a decimal string of at most `maxDecimalLength` characters, or nil when it is one.
    static func decimalProblem(_ text: String, example: String) -> String? {
        let length = text.unicodeScalars.count
        if length > maxDecimalLength {
            return "is \(length) characters long; a decimal string has at most \(maxDecimalLength)"
        }
        return isDecimal(text) ? nil : "\"\(text)\" is not a decimal number such as \"\(example)\""
    }

    /// `-?[0-9]+(\.[0-9]+)?`: digits with an optional fraction and sign, nothing else.
    static func isDecimal(_ text: String) -> Bool {
        var scalars = Array(text.unicodeScalars)[...]
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// Whether the decimal string `text` is above zero: no sign, and a digit other than 0 somewhere.
    static func isPositiveDecimal(_ text: String) -> Bool {
        text.unicodeScalars.first != "-" && text.unicodeScalars.contains { ("1"..."9").contains($0) }
    }
}
