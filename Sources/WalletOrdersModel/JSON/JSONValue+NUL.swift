import Foundation

/// The rule for NUL (U+0000) in text: no text may hold it. PostgreSQL's `text` cannot store it, so without the rule
/// SQLite would keep what PostgreSQL refuses; and C APIs end a string there.
public enum NULText {
    /// What a problem says of text that holds NUL, the same wherever it is refused.
    public static let message = "holds a NUL character (U+0000), which no text may hold"

    /// Whether `text` holds NUL.
    public static func isIn(_ text: some StringProtocol) -> Bool {
        text.utf8.contains(0)
    }
}

extension JSONValue {
    /// Where the first string or member name holding NUL is, written as order problems write paths
    /// (`fulfillments[0].status`, "" for this value itself; a member name's own path, its NUL written `\u0000`);
    /// nil when there is none. Members are looked at in the order of their names, so the answer is always the same.
    public var pathOfNUL: String? {
        // Most values hold none: looked for first without building a single path.
        guard holdsNUL else { return nil }
        return pathOfNUL(at: "")
    }

    private var holdsNUL: Bool {
        switch self {
        case .string(let text): NULText.isIn(text)
        case .array(let values): values.contains { $0.holdsNUL }
        case .object(let members): members.contains { NULText.isIn($0.key) || $0.value.holdsNUL }
        case .null, .bool, .int, .double: false
        }
    }

    private func pathOfNUL(at path: String) -> String? {
        switch self {
        case .string(let text):
            return NULText.isIn(text) ? path : nil
        case .array(let values):
            for (index, value) in values.enumerated() where value.holdsNUL { return value.pathOfNUL(at: "\(path)[\(index)]") }
            return nil
        case .object(let members):
            for key in members.keys.sorted() {
                let member = path.isEmpty ? key : "\(path).\(key)"
                if NULText.isIn(key) { return member.replacingOccurrences(of: "\u{0}", with: "\\u0000") }
                if let found = members[key]?.pathOfNUL(at: member) { return found }
            }
            return nil
        case .null, .bool, .int, .double:
            return nil
        }
    }
}
