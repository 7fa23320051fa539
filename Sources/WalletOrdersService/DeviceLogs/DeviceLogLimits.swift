/// How much of what devices send to the log endpoint is kept: the endpoint takes anyone's messages, so each
/// entry, each request and the whole log have a bound.
public struct DeviceLogLimits: Sendable, Equatable {
    /// The longest message kept, in UTF-8 bytes; a longer one is cut at a character boundary.
    public var maxEntryBytes = 4_096
    /// The most messages kept from one request; the rest are dropped.
    public var maxEntriesPerRequest = 100
    /// What all entries may add up to (`DeviceLogEntry.storedSize(of:)`); the entries last seen longest ago go
    /// first. 64 MiB by default.
    public var maxTotalBytes = 64 * 1_024 * 1_024

    public init() {}
}
