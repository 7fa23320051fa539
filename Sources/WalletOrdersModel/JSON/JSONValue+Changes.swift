import Foundation

/// One difference between two JSON documents: the value at `path` before and after (nil where there was none).
/// Paths read as order problems' do: `fulfillments[0].status`, `payment.total.amount`.
public struct JSONChange: Sendable, Hashable, Codable {
    public let path: String
    public let before: JSONValue?
    public let after: JSONValue?

    public init(path: String, before: JSONValue?, after: JSONValue?) {
        self.path = path
        self.before = before
        self.after = after
    }

    /// This change with a path longer than `maxPathBytes` cut (ending in `…`) and a value longer than
    /// `maxValueBytes` serialized kept as a string saying its size: what a record of it holds, however large the
    /// names and values a document uses.
    public func shortened(maxPathBytes: Int, maxValueBytes: Int) -> JSONChange {
        func value(_ value: JSONValue?) -> JSONValue? {
            guard let value else { return nil }
            let size = value.serialized().count
            return size > maxValueBytes ? .string("(\(size) bytes)") : value
        }
        return JSONChange(path: Self.cut(path, maxBytes: maxPathBytes), before: value(before), after: value(after))
    }

    /// `text` whole when it has at most `maxBytes` bytes of UTF-8, else its longest start that leaves room for `…`
    /// within them (never a character split), followed by `…`.
    public static func cut(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let ellipsis = "…"
        var kept = String.UnicodeScalarView()
        var bytes = ellipsis.utf8.count
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxBytes else { break }
            kept.append(scalar)
        }
        return String(kept) + ellipsis
    }
}

/// What changed between two JSON documents, as far as a record keeps it: the first changes, each shortened, and how
/// many more there were.
public struct JSONChanges: Sendable, Hashable {
    /// The changes listed, in path order.
    public let listed: [JSONChange]
    /// How many more changes there were than `listed` holds.
    public let more: Int

    public init(listed: [JSONChange], more: Int = 0) {
        self.listed = listed
        self.more = more
    }
}

extension JSONValue {
    /// What changed from this document to `other`, leaf by leaf, in path order: members and array elements are
    /// compared in place; a value whose type changed is one change. At most `limit` changes are listed and the rest
    /// only counted; each is shortened (`JSONChange.shortened`), so that a version's record stays small whatever the
    /// documents hold.
    public func changes(
        to other: JSONValue,
        ignoring ignored: Set<String> = [],
        limit: Int = 200,
        maxPathBytes: Int = 256,
        maxValueBytes: Int = 1_024
    ) -> JSONChanges {
        var listed: [JSONChange] = []
        var more = 0
        func walk(_ before: JSONValue?, _ after: JSONValue?, _ path: String) {
            guard before != after, !ignored.contains(path) else { return }
            switch (before, after) {
            case (.object(let old)?, .object(let new)?):
                for key in Set(old.keys).union(new.keys).sorted() {
                    walk(old[key], new[key], path.isEmpty ? key : "\(path).\(key)")
                }
            case (.array(let old)?, .array(let new)?):
                for index in 0..<max(old.count, new.count) {
                    walk(index < old.count ? old[index] : nil, index < new.count ? new[index] : nil, "\(path)[\(index)]")
                }
            default:
                guard listed.count < limit else {
                    more += 1
                    return
                }
                listed.append(
                    JSONChange(path: path, before: before, after: after)
                        .shortened(maxPathBytes: maxPathBytes, maxValueBytes: maxValueBytes)
                )
            }
        }
        walk(self, other, "")
        return JSONChanges(listed: listed, more: more)
    }
}
