import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Makes commits durable without making the single writer wait for the disk.
///
/// The store commits at `synchronous = NORMAL`: a commit writes its pages to the log but does not sync it, so the
/// writer goes on to the next write at once. Before a write is acknowledged, the store waits here for a sync of
/// the log that began after the write committed. That sync runs on a thread of its own, and every write waiting
/// when it starts shares it, so under load one sync covers many commits while the writer keeps committing. Syncing
/// at each commit instead (`synchronous = FULL`) held the writer for every sync and halved registrations.
///
/// Linux syncs a file, not a descriptor: syncing a descriptor of our own writes out what SQLite's descriptor wrote.
final class WALSync: Sendable {
    /// The log's path: the database's with `-wal`.
    let path: String
    private let syncFile: @Sendable (Int32) -> Int32
    private struct State {
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var running = false
        /// The open log and the identity of the file it is, so a log SQLite replaced is opened again.
        var descriptor: Int32 = -1
        var file: (device: UInt64, inode: UInt64) = (0, 0)
        /// How many syncs have run (tests read it).
        var syncs = 0
    }
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "wallet-orders-wal-sync", qos: .userInitiated)

    /// Syncs the log of the database at `databasePath`; `syncFile` is `fdatasync` except in tests.
    init(databasePath: String, syncFile: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) {
        path = databasePath + "-wal"
        self.syncFile = syncFile
    }

    deinit {
        state.withLock { state in if state.descriptor >= 0 { close(state.descriptor) } }
    }

    /// How many syncs have run.
    var syncCount: Int { state.withLock { $0.syncs } }
    /// How many callers wait for the next sync.
    var waitingCount: Int { state.withLock { $0.waiting.count } }
    /// The inode of the file last synced.
    var syncedInode: UInt64 { state.withLock { $0.file.inode } }

    /// Returns once a sync of the log that began after this call has finished: every commit before the call is on
    /// disk. Throws when the log cannot be opened or synced.
    func sync() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start = state.withLock { state in
                state.waiting.append(continuation)
                let idle = !state.running
                state.running = true
                return idle
            }
            if start { queue.async { self.drain() } }
        }
    }

    /// On the queue: syncs for everyone waiting, again while more arrive, then stops until the next call.
    private func drain() {
        while true {
            let waiting = state.withLock { state in
                let waiting = state.waiting
                state.waiting = []
                if waiting.isEmpty { state.running = false }
                return waiting
            }
            guard !waiting.isEmpty else { return }
            let result = Result { try syncLog() }
            for continuation in waiting { continuation.resume(with: result) }
        }
    }

    /// Syncs the log, first (re)opening it when it is not open or no longer the file at `path`.
    private func syncLog() throws {
        var current = stat()
        guard stat(path, &current) == 0 else { throw WALSyncError(path: path, operation: "stat", code: errno) }
        let file = (device: UInt64(current.st_dev), inode: UInt64(current.st_ino))
        let opened = state.withLock { (descriptor: $0.descriptor, file: $0.file) }
        let descriptor = opened.descriptor >= 0 && opened.file == file ? opened.descriptor : try open(file)
        guard syncFile(descriptor) == 0 else { throw WALSyncError(path: path, operation: "fdatasync", code: errno) }
        state.withLock { $0.syncs += 1 }
    }

    /// Opens the log, and syncs its folder once so that the file itself survives a power loss (a new file's name is
    /// written to its folder, which a sync of the file does not cover).
    private func open(_ file: (device: UInt64, inode: UInt64)) throws -> Int32 {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WALSyncError(path: path, operation: "open", code: errno) }
        // A write is acknowledged only once the log survives a power loss, and the log's name is part of that: a
        // folder that cannot be opened or synced fails the write like a failed sync of the log itself.
        let folderPath = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let folder = Glibc.open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            let code = errno
            close(descriptor)
            throw WALSyncError(path: folderPath, operation: "open", code: code)
        }
        defer { close(folder) }
        guard fsync(folder) == 0 else {
            let code = errno
            close(descriptor)
            throw WALSyncError(path: folderPath, operation: "fsync", code: code)
        }
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = descriptor
            state.file = file
        }
        return descriptor
    }
}

/// The write-ahead log could not be synced: what was done, to which file, and the system's reason.
struct WALSyncError: Error, CustomStringConvertible {
    let path: String
    let operation: String
    let code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}
