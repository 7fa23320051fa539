import Foundation

/// What devices sent to the log endpoint, bounded by size.
public protocol DeviceLogStorage: Sendable {
    /// Stores messages a device sent to the log endpoint, in one transaction: a message an entry already holds
    /// is folded into it (its count grows, its last-seen time and sender become these), the others become new
    /// entries; then the entries last seen longest ago go until the sizes of all entries
    /// (`DeviceLogEntry.storedSize(of:)`) add up to at most `maxBytes`.
    /// `merchants` names the merchant of the messages that name one of a platform merchant's orders; the others are
    /// the default merchant's to read. An entry keeps the merchant of its message.
    func appendLogs(
        _ messages: [String],
        merchants: [String: Int64],
        remoteAddress: String?,
        maxBytes: Int
    ) async throws -> DeviceLogAppend
    /// Device log entries, newest first (by when first received), filtered, one page.
    func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry>
    /// What the device log entries add up to, in `DeviceLogEntry.storedSize(of:)` bytes.
    func logBytes() async throws -> Int
    /// Deletes device log entries last received more than `age` seconds ago; answers how many.
    func pruneLogs(olderThan age: TimeInterval) async throws -> Int
}
