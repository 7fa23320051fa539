/// How much room the filesystem holding the database has left: what the service can still write there.
public struct DiskSpace: Sendable, Equatable {
    /// The folder whose filesystem this is: the one holding the database file.
    public let folder: String
    /// Bytes a process without privileges may still write there.
    public let freeBytes: Int
    /// The filesystem's size in bytes.
    public let totalBytes: Int

    public init(folder: String, freeBytes: Int, totalBytes: Int) {
        self.folder = folder
        self.freeBytes = freeBytes
        self.totalBytes = totalBytes
    }

    /// `bytes` for people: whole MiB, or KiB below one MiB (rounded down).
    public static func text(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(max(bytes, 0) >> 10) KiB"
    }
}
