import Foundation

/// Which page of a newest-first listing to read.
public struct PageRequest: Sendable, Equatable {
    /// At most this many records.
    public let limit: Int
    /// Start after this cursor: the `next` of the page before.
    public let before: Int64?

    public init(limit: Int, before: Int64? = nil) {
        self.limit = max(1, limit)
        self.before = before
    }
}

/// One page of a newest-first listing, and where the next one starts (nil on the last page).
public struct Page<Record: Sendable>: Sendable {
    public let records: [Record]
    public let next: Int64?

    public init(records: [Record], next: Int64?) {
        self.records = records
        self.next = next
    }

    /// A page from up to `limit + 1` rows read newest first: the extra row only says that there is more.
    public init(rows: [(cursor: Int64, record: Record)], limit: Int) {
        let page = rows.prefix(limit)
        records = page.map(\.record)
        next = rows.count > limit ? page.last?.cursor : nil
    }
}

extension Page: Equatable where Record: Equatable {}
