/// What an error message may repeat of a request: the input it quotes, cut short. A message that quotes a
/// 200,000-digit number or a megabyte of text would otherwise send it back whole, and into whatever logs it.
enum ErrorText {
    /// The most characters kept of one quote: text in double quotes, or a run with no space (a number, a path).
    static let maxQuote = 64
    /// The most characters kept of a whole message.
    static let maxMessage = 1_024

    /// `text` with every quote longer than `maxQuote` cut to its first `maxQuote` characters and "…", and the whole
    /// to `maxMessage`. Messages are written with words shorter than that, so only what they quote is cut.
    static func clipped(_ text: String) -> String {
        guard text.count > maxQuote else { return text }
        var clipped = ""
        var run = ""
        var rest = Substring(text)
        while let first = rest.first {
            if first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
                clipped += cut(run, to: maxQuote)
                run = ""
                clipped += "\"" + cut(rest[rest.index(after: rest.startIndex)..<close], to: maxQuote) + "\""
                rest = rest[rest.index(after: close)...]
            } else if first.isWhitespace {
                clipped += cut(run, to: maxQuote)
                run = ""
                clipped.append(first)
                rest = rest.dropFirst()
            } else {
                run.append(first)
                rest = rest.dropFirst()
            }
        }
        clipped += cut(run, to: maxQuote)
        return cut(clipped, to: maxMessage)
    }

    private static func cut(_ text: some StringProtocol, to limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : String(text)
    }
}
