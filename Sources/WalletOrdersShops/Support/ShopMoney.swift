import WalletOrdersModel

/// Money as shops send it and Wallet wants it: decimal strings (`"23.40"`) or counts of a currency's minor unit (UCP's
/// `3000` for 30.00 USD), turned into Wallet's `CurrencyAmount` with whole-number arithmetic only. No amount ever
/// passes through a `Double`.
enum ShopMoney {
    /// The longest decimal string taken, as the validator takes one.
    static let maxDecimalLength = 32
    /// The largest count of minor units taken: 15 digits, which every JSON reader holds exactly.
    static let maxMinorUnits = 999_999_999_999_999

    /// The ISO 4217 code at `value`, upper case as sent, when it names a currency in use.
    static func currency(_ value: JSONValue?) -> String? {
        guard let code = value?.stringValue, code.utf8.count == 3, CurrencyCode.all.contains(code) else { return nil }
        return code
    }

    /// How many digits a currency's minor unit has (ISO 4217): 2 but for the currencies listed.
    static func exponent(of currency: String) -> Int {
        switch currency {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF",
            "XPF":
            0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": 3
        case "CLF", "UYW": 4
        default: 2
        }
    }

    /// A non-negative decimal string (`"199.65"`, `"0"`), as the shop wrote it, or a whole JSON number as its digits;
    /// nil for anything else (a negative amount, a fraction sent as a JSON number, an exponent, a megabyte of digits).
    static func decimal(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: isDecimal(text) ? text : nil
        case .int(let number)? where number >= 0 && number <= maxMinorUnits: String(number)
        default: nil
        }
    }

    /// `[0-9]+(\.[0-9]+)?`, at most `maxDecimalLength` characters.
    static func isDecimal(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maxDecimalLength else { return false }
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }

    /// The count of minor units a decimal string holds in `currency` (`"199.65"` USD is 19965); nil when it has
    /// more fraction digits than the currency, other than zeros, or is too large.
    static func minorUnits(_ text: String, currency: String) -> Int? {
        guard isDecimal(text) else { return nil }
        let exponent = exponent(of: currency)
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        var fraction = parts.count > 1 ? Array(parts[1]) : []
        while fraction.count > exponent, fraction.last == "0" { fraction.removeLast() }
        guard fraction.count <= exponent else { return nil }
        fraction += Array(repeating: "0", count: exponent - fraction.count)
        let digits = (whole + String(fraction)).drop { $0 == "0" }
        guard digits.count <= 15 else { return nil }
        return digits.isEmpty ? 0 : Int(digits)
    }

    /// `units` minor units of `currency` as a decimal string with the currency's digits: 19965 USD is `"199.65"`,
    /// 3000 JPY is `"3000"`; nil for a negative count or one beyond `maxMinorUnits`.
    static func decimal(minorUnits units: Int, currency: String) -> String? {
        guard units >= 0, units <= maxMinorUnits else { return nil }
        let exponent = exponent(of: currency)
        guard exponent > 0 else { return String(units) }
        var digits = String(units)
        if digits.count <= exponent { digits = String(repeating: "0", count: exponent - digits.count + 1) + digits }
        let split = digits.index(digits.endIndex, offsetBy: -exponent)
        return String(digits[..<split]) + "." + String(digits[split...])
    }

    /// A Wallet `CurrencyAmount`: `{"amount": "<decimal>", "currency": "<ISO 4217>"}`.
    static func amount(_ decimal: String, currency: String) -> JSONValue {
        .object(["amount": .string(decimal), "currency": .string(currency)])
    }

    /// The price of one of `quantity` items whose line costs `total`, when it divides exactly into minor units of
    /// `currency`: a price Wallet shows must be the one the shop charged, never a rounded guess.
    static func unitPrice(total: String, quantity: Int, currency: String) -> String? {
        guard quantity > 0, let units = minorUnits(total, currency: currency), units % quantity == 0 else { return nil }
        return decimal(minorUnits: units / quantity, currency: currency)
    }

    /// The sum of two decimal strings in `currency`, when both are exact in its minor units.
    static func sum(_ a: String, _ b: String, currency: String) -> String? {
        guard let x = minorUnits(a, currency: currency), let y = minorUnits(b, currency: currency) else { return nil }
        let (total, overflow) = x.addingReportingOverflow(y)
        return overflow ? nil : decimal(minorUnits: total, currency: currency)
    }
}
