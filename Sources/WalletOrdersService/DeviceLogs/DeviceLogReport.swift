/// What became of one request's log messages, for metrics.
public struct DeviceLogReport: Sendable, Equatable {
    /// Stored as new entries.
    public var stored = 0
    /// Folded into an entry holding the same message.
    public var folded = 0
    /// Cut to `maxEntryBytes` (and stored or folded).
    public var truncated = 0
    /// Dropped past `maxEntriesPerRequest`.
    public var droppedOverRequestCap = 0
    /// Older entries deleted to keep the total.
    public var evicted = 0
    /// Dropped because the store failed; the endpoint answers 200 all the same.
    public var droppedStoreFailed = 0

    public init() {}
}
