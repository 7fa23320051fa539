import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own for merchant writes (reading the order, merging, validating, building and signing the
/// package), one per core, at a lower scheduling priority than the rest of the process.
///
/// A merchant update costs a couple of milliseconds of CPU, most of it outside the database: the stored document
/// parsed, the change merged and validated, order.json written, every file hashed, the RSA-2048 signature, the zip.
/// Run on Swift's cooperative pool (one thread per core) at full merchant speed it would hold the threads every
/// device request (registration, listing, fetch, log) needs. As a task executor the service prefers for its writes,
/// the pool takes that work off the cooperative threads, and the kernel runs device requests first whenever both
/// want a core: updates get what the device API leaves, and are never starved (a niced thread still gets a small
/// share). What a write does inside the store (its queries and commit) runs where the store runs it.
public final class WritePool: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// The threads' nice value: 10 lowers them to about a tenth of a normal thread's share when both are runnable.
    static let niceness: Int32 = 10

    /// The process's pool: as many threads as cores.
    public static let shared = WritePool(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// A pool of `threads` threads, started now; they live as long as the process.
    public init(threads: Int) {
        for index in 0..<max(1, threads) {
            Thread { [self] in self.work(name: "wo-write-\(index)") }.start()
        }
    }

    /// Runs `body` on the pool's threads and returns what it returns, or throws what it throws: its own code and
    /// every nonisolated async function it awaits run there.
    public func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withTaskExecutorPreference(self, operation: body)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work(name: String) {
        #if os(Linux)
        // Named for `top -H` and perf (Linux allows 15 characters) by writing the kernel's own file for it.
        // Foundation's `Thread.name` reaches the kernel only if the thread's handle, which `start()` records after
        // the thread may already be running, is there by then: under load the name was sometimes lost.
        try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        // On Linux the nice value is per thread, and `who = 0` names the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #else
        Thread.current.name = name
        #endif
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
