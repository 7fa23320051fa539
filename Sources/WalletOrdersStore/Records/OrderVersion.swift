import Foundation
import WalletOrdersModel

/// One version of an order: when it was written, the status it had, who made it and what it changed.
public struct OrderVersion: Sendable, Codable, Equatable {
    public let version: Int
    public let status: Order.Status
    public let updatedAt: Date
    /// Who made it (`merchant:acme`, `partner:dhl`, `operator`); nil for versions made before authors were kept.
    public let author: String?
    /// What changed from the version before, as its record keeps it (`record`); nil for a first version and for
    /// versions made before changes were kept.
    public let changes: [JSONChange]?
    /// How many more changes it made than `changes` lists: its record keeps at most `maxChanges` in
    /// `maxRecordBytes`.
    public let changesLeftOut: Int

    public init(
        version: Int,
        status: Order.Status,
        updatedAt: Date,
        author: String? = nil,
        changes: [JSONChange]? = nil,
        changesLeftOut: Int = 0
    ) {
        self.version = version
        self.status = status
        self.updatedAt = updatedAt
        self.author = author
        self.changes = changes
        self.changesLeftOut = changesLeftOut
    }

    /// The version as a store read it: `record` is its history row's change record (nil when none was kept).
    public init(version: Int, status: Order.Status, updatedAt: Date, author: String?, record: String?) {
        let read = Self.changes(record: record)
        self.init(
            version: version,
            status: status,
            updatedAt: updatedAt,
            author: author,
            changes: read?.listed,
            changesLeftOut: read?.more ?? 0
        )
    }
}

/// What a version's history row keeps of what it changed: decided here, once, for every store. An engine stores the
/// record an `OrderWrite` carries, and its merchant's storage counts the record's bytes.
extension OrderVersion {
    /// The most changes a record lists.
    public static let maxChanges = 100
    /// The most bytes of a change's path kept; a longer one is cut, ending in `…`.
    public static let maxPathBytes = 256
    /// The most bytes of a value kept, serialized; a longer one is kept as a string saying its size.
    public static let maxValueBytes = 1_024
    /// The most bytes a record holds, its mark of changes left out included: the most history one version adds to
    /// its merchant's storage.
    public static let maxRecordBytes = 16_384
    /// Room kept for the mark `,{"more":N}`.
    private static let markBytes = 32

    /// The record a store keeps of `changes`: a JSON array of `{path, before, after}`, each change shortened, as many
    /// as fit in `maxChanges` and `maxRecordBytes`; when any were left out (`more` of them before these), its last
    /// element is `{"more": N}`.
    public static func record(_ changes: [JSONChange], more: Int = 0) -> String {
        var elements: [JSONValue] = []
        var bytes = 2
        for change in changes.prefix(maxChanges) {
            let short = change.shortened(maxPathBytes: maxPathBytes, maxValueBytes: maxValueBytes)
            var fields: [String: JSONValue] = ["path": .string(short.path)]
            if let before = short.before { fields["before"] = before }
            if let after = short.after { fields["after"] = after }
            let element = JSONValue.object(fields)
            let size = element.serialized().count + (elements.isEmpty ? 0 : 1)
            guard bytes + size + markBytes <= maxRecordBytes else { break }
            elements.append(element)
            bytes += size
        }
        let leftOut = changes.count - elements.count + more
        if leftOut > 0 { elements.append(.object(["more": .int(leftOut)])) }
        return String(decoding: JSONValue.array(elements).serialized(), as: UTF8.self)
    }

    /// The changes a record lists and how many it left out; nil when nothing, or nothing readable, was kept. A record
    /// kept before records were bounded is bounded alike on the way out.
    public static func changes(record text: String?) -> (listed: [JSONChange], more: Int)? {
        guard let text, let elements = (try? JSONValue.parse(Data(text.utf8)))?.arrayValue else { return nil }
        var listed: [JSONChange] = []
        var more = 0
        for element in elements {
            if let path = element["path"]?.stringValue {
                listed.append(JSONChange(path: path, before: element["before"], after: element["after"]))
            } else if let count = element["more"]?.intValue {
                more += max(0, count)
            }
        }
        guard text.utf8.count > maxRecordBytes || listed.count > maxChanges else { return (listed, more) }
        return changes(record: record(listed, more: more))
    }
}
