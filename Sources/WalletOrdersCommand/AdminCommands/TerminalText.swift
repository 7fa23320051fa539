import WalletOrdersModel

/// Text from outside (a device's log message, an order number, anything the database holds) as the command line
/// prints it for people: every control character written out rather than obeyed. A terminal takes an escape
/// sequence in a log message as a command: to change colours, clear the screen, set the title, or write the
/// clipboard (OSC 52); a carriage return or a line feed would forge a line of the table. `--json` prints the text as
/// it is: a script reads it as data.
enum TerminalText {
    /// `text` with each control character, bidirectional formatting character and line or paragraph separator
    /// written out: `\e` (escape), `\n`, `\r`, `\t`, `\0`, `\xHH` for the other C0 and C1 controls, `\u{HHHH}` for
    /// the rest. Everything else is left as it is.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isShownEscaped) else { return text }
        var shown = ""
        shown.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{1B}": shown += "\\e"
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case "\u{0}": shown += "\\0"
            case _ where !isShownEscaped(scalar): shown.unicodeScalars.append(scalar)
            case _ where scalar.value <= 0xFF: shown += "\\x" + hex(scalar.value, digits: 2)
            default: shown += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return shown
    }

    private static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isHiddenControl
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
