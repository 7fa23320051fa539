import Mustache
import WalletOrdersModel

/// Text from outside (a device's log message, an identifier, a merchant's name) as the admin page shows it: HTML
/// escaped, and each control or bidirectional formatting character written out (`\u{202E}`) in a span of its own
/// rather than obeyed. A right-to-left override in a message would otherwise reorder what the page shows after it,
/// and other controls would hide in it.
struct VisibleText: MustacheCustomRenderable {
    let text: String

    /// The HTML; the template puts it in with `{{{…}}}`. Where `{{…}}` escapes it again, it shows the markup
    /// instead, which is safe.
    var renderText: String {
        var html = ""
        html.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": html += "&amp;"
            case "<": html += "&lt;"
            case ">": html += "&gt;"
            case "\"": html += "&quot;"
            case "'": html += "&#39;"
            case _ where Self.isShownEscaped(scalar):
                let code = String(scalar.value, radix: 16, uppercase: true)
                html += #"<span class="control" title="U+\#(String(repeating: "0", count: max(0, 4 - code.count)) + code)">\u{\#(code)}</span>"#
            default: html.unicodeScalars.append(scalar)
            }
        }
        return html
    }

    var isNull: Bool { false }

    /// `Unicode.Scalar.isHiddenControl`, but for tab and line feed, which the page shows as the spacing they are.
    static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && scalar != "\n" && scalar.isHiddenControl
    }
}
