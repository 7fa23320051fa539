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
}

extension JSONValue {
    /// What changed from this document to `other`, leaf by leaf, in path order: members and array elements are
    /// compared in place; a value whose type changed is one change. At most `limit` changes, and a value longer than
    /// `maxValueBytes` serialized is kept as a string saying its size, so that a version's record stays small.
    public func changes(
        to other: JSONValue,
        ignoring ignored: Set<String> = [],
        limit: Int = 200,
        maxValueBytes: Int = 1_024
    ) -> [JSONChange] {
        var changes: [JSONChange] = []
        func shortened(_ value: JSONValue?) -> JSONValue? {
            guard let value else { return nil }
            let size = value.serialized().count
            return size > maxValueBytes ? .string("(\(size) bytes)") : value
        }
        func walk(_ before: JSONValue?, _ after: JSONValue?, _ path: String) {
            guard changes.count < limit, before != after, !ignored.contains(path) else { return }
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
                changes.append(JSONChange(path: path, before: shortened(before), after: shortened(after)))
            }
        }
        walk(self, other, "")
        return changes
    }
}
