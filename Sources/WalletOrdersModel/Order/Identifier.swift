/// Limits on the identifiers that appear in URLs and in the database.
public enum Identifier {
    /// The longest order type, order, or device identifier accepted.
    public static let maxLength = 128

    /// Why `value` cannot be an identifier, or nil when it can.
    ///
    /// Identifiers travel as URL path segments, so they are kept to letters, digits and `.`, `-`, `_`, `:`, `~`,
    /// and are not `.` or `..`, which clients remove from a URL's path as steps (RFC 3986, section 5.2.4) before
    /// the request is sent.
    public static func problem(with value: String) -> String? {
        if value.isEmpty { return "must not be empty" }
        if value == "." || value == ".." {
            return "must not be . or .., which clients remove from URLs as path steps"
        }
        if value.utf8.count > maxLength { return "is longer than \(maxLength) characters" }
        let allowed = value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "~")
        }
        return allowed ? nil : "may only hold letters, digits and . - _ : ~"
    }

    /// Whether `value` is an acceptable identifier.
    public static func isValid(_ value: String) -> Bool { problem(with: value) == nil }
}
