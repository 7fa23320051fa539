import Foundation
import Synchronization
import WalletOrdersStore

#if canImport(Glibc)
import Glibc
#endif

/// Reads how much room the filesystem holding the database has (`statvfs` on its folder), at most once a second:
/// `/healthz` is polled, and a full disk does not empty itself faster than that.
final class DiskSpaceProbe: Sendable {
    /// How long an answer is reused.
    static let maxAge: Duration = .seconds(1)
    /// The folder holding the database file.
    let folder: String
    private let last = Mutex<(at: ContinuousClock.Instant, space: DiskSpace?)?>(nil)

    init(folder: String) {
        self.folder = folder
    }

    /// The room left, read again when the last answer is older than `maxAge` (or `fresh` asks for it); nil when the
    /// folder cannot be looked at.
    func current(fresh: Bool = false) -> DiskSpace? {
        let now = ContinuousClock.now
        if !fresh, let last = last.withLock({ $0 }), now - last.at < Self.maxAge { return last.space }
        let space = read()
        last.withLock { $0 = (now, space) }
        return space
    }

    private func read() -> DiskSpace? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        let block = Int(info.f_frsize)
        // `f_bavail`, not `f_bfree`: the blocks reserved for root are not the service's to count on.
        return DiskSpace(folder: folder, freeBytes: Int(info.f_bavail) * block, totalBytes: Int(info.f_blocks) * block)
    }
}
