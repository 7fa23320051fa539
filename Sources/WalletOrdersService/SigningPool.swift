import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own for building and signing packages, one per core, at a lower scheduling priority than
/// the rest of the process.
///
/// Signing an RSA-2048 package is CPU work of a fraction of a millisecond that cannot be split. Run on Swift's
/// cooperative pool (one thread per core) it would hold those threads while merchants update orders at full speed,
/// and every device request (registration, listing, fetch, log) would wait for a thread. Here the cooperative
/// threads only wait for a continuation, and the kernel runs device requests first whenever both want a core:
/// updates get what the device API leaves, and are never starved (a niced thread still gets a small share).
public final class SigningPool: @unchecked Sendable {
    // @unchecked: `jobs` is only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    /// The threads' nice value: 10 lowers them to about a tenth of a normal thread's share when both are runnable.
    static let niceness: Int32 = 10

    /// The process's pool: as many threads as cores.
    public static let shared = SigningPool(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// A pool of `threads` threads, started now; they live as long as the process.
    public init(threads: Int) {
        for index in 0..<max(1, threads) {
            Thread { [self] in self.work(name: "wo-signing-\(index)") }.start()
        }
    }

    /// Runs `body` on one of the pool's threads and returns what it returns, or throws what it throws.
    public func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work(name: String) {
        // Named for `top -H` and perf (Linux allows 15 characters).
        Thread.current.name = name
        #if os(Linux)
        // On Linux the nice value is per thread, and `who = 0` names the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #endif
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
