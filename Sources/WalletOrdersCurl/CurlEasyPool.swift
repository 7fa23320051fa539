import Foundation

/// Transfers on a few threads of their own, one at a time on each, so that no Swift or NIO thread ever blocks on the
/// network: each thread has an easy handle that keeps its connections for the next transfer to the same host. The
/// threads start with the first transfer and end with `shutdown()`, which whoever made the pool calls when done
/// with it: they hold the pool until then.
///
/// `@unchecked Sendable`: the queue and the threads' state are guarded by `condition`; each thread alone touches its
/// handle.
public final class CurlEasyPool: @unchecked Sendable {
    /// Transfers under way at once: the number of threads.
    public let threads: Int
    private let threadName: String
    /// Sets up each thread's handle with the options every transfer shares, once.
    private let prepare: CurlEasy.Setup
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var started = false
    private var stopping = false
    private var running = 0
    /// Who waits in `shutdown()` for the threads to end.
    private var waitingForStop: [CheckedContinuation<Void, Never>] = []

    private struct Job {
        let setup: CurlEasy.Setup
        let continuation: CheckedContinuation<CurlResult?, Never>
    }

    /// A pool of `threads` threads named `threadName-<n>`; `prepare` sets the options every transfer shares on each
    /// thread's handle.
    public init(threads: Int, threadName: String, prepare: @escaping CurlEasy.Setup) {
        self.threads = max(1, threads)
        self.threadName = threadName
        self.prepare = prepare
    }

    /// Performs one transfer, set up by `setup` on a thread's handle, and answers what came of it; nil when the pool
    /// is shut down.
    public func perform(_ setup: @escaping CurlEasy.Setup) async -> CurlResult? {
        await withCheckedContinuation { continuation in
            let accepted = condition.withLock { () -> Bool in
                guard !stopping else { return false }
                if !started {
                    started = true
                    running = threads
                    for index in 0..<threads {
                        let thread = Thread { self.loop() }
                        thread.name = "\(threadName)-\(index)"
                        thread.start()
                    }
                }
                queue.append(Job(setup: setup, continuation: continuation))
                condition.signal()
                return true
            }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Stops the threads once the transfers already queued are done, and returns when they have ended; later
    /// transfers are answered nil at once.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            let ended = condition.withLock { () -> Bool in
                stopping = true
                condition.broadcast()
                guard running > 0 else { return true }
                waitingForStop.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    private func loop() {
        var handle = makeHandle()
        defer {
            let waiting = condition.withLock { () -> [CheckedContinuation<Void, Never>] in
                running -= 1
                guard running == 0 else { return [] }
                defer { waitingForStop = [] }
                return waitingForStop
            }
            for continuation in waiting { continuation.resume() }
        }
        while true {
            let job = condition.withLock { () -> Job? in
                while queue.isEmpty && !stopping { condition.wait() }
                return queue.isEmpty ? nil : queue.removeFirst()
            }
            guard let job else { return }
            job.continuation.resume(returning: perform(job.setup, on: &handle))
        }
    }

    /// A handle with the options every transfer shares, or why there is none (that transfer is answered with why, and
    /// the next one tries again).
    private func makeHandle() -> Result<CurlEasy, CurlError> {
        Result { () throws(CurlError) -> CurlEasy in
            let easy = try CurlEasy()
            try prepare(easy)
            return easy
        }
    }

    private func perform(_ setup: CurlEasy.Setup, on handle: inout Result<CurlEasy, CurlError>) -> CurlResult {
        if case .failure = handle { handle = makeHandle() }
        let easy: CurlEasy
        switch handle {
        case .success(let made): easy = made
        case .failure(let failure): return CurlResult(failure: failure)
        }
        do throws(CurlError) {
            try setup(easy)
        } catch {
            // Its options are in whatever state the failed call left them (libcurl clears every allowed scheme when
            // one name in a list is wrong): the next transfer gets a new handle.
            handle = makeHandle()
            return CurlResult(failure: error)
        }
        return easy.perform()
    }
}
