/// A server's text made safe to show: what a web service answers is not trusted, so control characters (which a
/// terminal would obey: colours, cursor moves, a title change) and the bidirectional overrides that reorder what a
/// reader sees are written out as `\u{…}`, and long text is cut.
enum EscapedText {
    /// `text` with every control character, DEL, C1 control and bidirectional override written as `\u{XX}`.
    static func terminal(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `text` for an XML attribute or element: the five markup characters as entities, line breaks and tabs as
    /// character references, and what XML 1.0 cannot hold (or a terminal would obey) escaped as in `terminal`.
    static func xml(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n": escaped += "&#10;"
            case "\t": escaped += "&#9;"
            default: escaped += isUnsafe(scalar) ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
            }
        }
        return escaped
    }

    /// The first `limit` characters of `text`, with `…` when it was longer.
    static func excerpt(_ text: String, limit: Int = 160) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates; the line and paragraph separators.
        case 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
