import Foundation

/// Many transfers at once over a few long-lived connections (HTTP/2 streams), on one libcurl multi handle driven by
/// a thread of its own, so that no Swift or NIO thread ever blocks on the network. The thread starts with the first
/// transfer and ends with `shutdown()`, which whoever made the loop calls when done with it: it holds the loop until
/// then.
///
/// `@unchecked Sendable`: the queue and the thread's state are guarded by `lock`; the multi handle, the idle handles
/// and the transfers under way are touched only by the thread, but for `CurlMulti.wake()`, which libcurl documents as
/// callable from any thread.
public final class CurlMultiLoop: @unchecked Sendable {
    /// What names the loop in the answers of transfers that `shutdown()` cut short ("the push transport").
    private let label: String
    private let threadName: String
    /// How many transfers are handed to libcurl at once: every connection's streams, no more, so libcurl never keeps
    /// a long pending list of its own.
    private let capacity: Int
    private let multi: CurlMulti
    /// Sets up a new handle with the options every transfer shares.
    private let prepare: CurlEasy.Setup
    private let lock = NSLock()
    private var queued: [Transfer] = []
    private var stopping = false
    /// Whether the thread was started (by the first transfer), and whether it has ended; who waits for it to.
    private var started = false
    private var ended = false
    private var waitingForStop: [CheckedContinuation<Void, Never>] = []
    /// Handles kept once their transfer is done, with `prepare`'s options still set; touched only by the thread.
    private var idle: [CurlEasy] = []
    /// The most idle handles kept.
    private static let maxIdle = 1_000

    /// A loop with at most `connections` connections to a host and `streamsPerConnection` concurrent transfers on
    /// each: libcurl opens another connection only when the open ones have no stream free. `prepare` sets the options
    /// every transfer shares, once per handle. `label` names the loop in the answers of transfers cut short by
    /// `shutdown()`; `threadName` names its thread. Throws what libcurl refused.
    public init(
        label: String,
        threadName: String,
        connections: Int,
        streamsPerConnection: Int,
        prepare: @escaping CurlEasy.Setup
    ) throws(CurlError) {
        self.label = label
        self.threadName = threadName
        capacity = max(1, connections * streamsPerConnection)
        multi = try CurlMulti(connections: connections, streamsPerConnection: streamsPerConnection)
        self.prepare = prepare
    }

    /// Performs `transfers` at once, each set up by its own `Setup` on the loop's thread; answers what came of each,
    /// in the same order, once all are done. nil when the loop is shut down.
    public func perform(_ transfers: [CurlEasy.Setup]) async -> [CurlResult]? {
        guard !transfers.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: transfers.count, continuation: continuation)
            let items = transfers.enumerated().map { Transfer(setup: $1, batch: batch, index: $0) }
            let accepted = lock.withLock { () -> Bool in
                guard !stopping else { return false }
                queued.append(contentsOf: items)
                if !started {
                    started = true
                    // The thread holds the loop until `shutdown()` ends it. (An unowned capture trapped when the loop
                    // was let go before the thread first ran.)
                    let thread = Thread { self.run() }
                    thread.name = threadName
                    thread.start()
                }
                return true
            }
            guard accepted else {
                continuation.resume(returning: nil)
                return
            }
            wake()
        }
    }

    /// Stops the thread and returns once it has ended; transfers still under way or queued are answered as cut short.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            let (wake, done) = lock.withLock { () -> (Bool, Bool) in
                stopping = true
                guard started, !ended else { return (false, true) }
                waitingForStop.append(continuation)
                return (true, false)
            }
            if wake { self.wake() }
            if done { continuation.resume() }
        }
    }

    /// The transfers of one `perform` call: answered together once the last of them is done. Touched only by the
    /// thread once queued.
    private final class Batch {
        var results: [CurlResult]
        var remaining: Int
        let continuation: CheckedContinuation<[CurlResult]?, Never>

        init(count: Int, continuation: CheckedContinuation<[CurlResult]?, Never>) {
            results = Array(repeating: CurlResult(failure: CurlError("not sent")), count: count)
            remaining = count
            self.continuation = continuation
        }

        func answer(_ index: Int, _ result: CurlResult) {
            results[index] = result
            remaining -= 1
            if remaining == 0 { continuation.resume(returning: results) }
        }
    }

    /// One transfer: how it is set up, and whose answer it is.
    private final class Transfer {
        let setup: CurlEasy.Setup
        let batch: Batch
        let index: Int

        init(setup: @escaping CurlEasy.Setup, batch: Batch, index: Int) {
            self.setup = setup
            self.batch = batch
            self.index = index
        }

        func answer(_ result: CurlResult) {
            batch.answer(index, result)
        }
    }

    private func run() {
        var active: [ObjectIdentifier: Transfer] = [:]
        var backlog: [Transfer] = []
        var next = 0
        while true {
            let (incoming, stop) = lock.withLock { () -> ([Transfer], Bool) in
                defer { queued.removeAll() }
                return (queued, stopping)
            }
            if stop {
                let cut = CurlResult(failure: CurlError("\(label) shut down"))
                for transfer in Array(backlog[next...]) + incoming { transfer.answer(cut) }
                failAll(&active, with: cut)
                let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                    ended = true
                    defer { waitingForStop = [] }
                    return waitingForStop
                }
                for continuation in waiting { continuation.resume() }
                return
            }
            backlog.append(contentsOf: incoming)
            while active.count < capacity, next < backlog.count {
                let transfer = backlog[next]
                next += 1
                do throws(CurlError) {
                    active[ObjectIdentifier(try start(transfer))] = transfer
                } catch {
                    transfer.answer(CurlResult(failure: error))
                }
            }
            if next == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                next = 0
            }
            do throws(CurlError) {
                try multi.perform()
            } catch {
                failAll(&active, with: CurlResult(failure: error))
            }
            while let (easy, result) = multi.nextDone() {
                guard let transfer = active.removeValue(forKey: ObjectIdentifier(easy)) else { continue }
                retire(easy)
                transfer.answer(result)
            }
            // Streams came free and more are waiting: start them before waiting on the sockets.
            if next < backlog.count, active.count < capacity { continue }
            do throws(CurlError) {
                try multi.poll(milliseconds: 1_000)
            } catch {
                failAll(&active, with: CurlResult(failure: error))
                // Whatever broke polling may not have gone away: do not spin on it.
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Wakes the thread from its poll. A wakeup that fails (libcurl could not write to its socket pair) only delays
    /// the thread until its poll times out, a second at most, so it is not retried.
    private func wake() {
        try? multi.wake()
    }

    /// Sets `transfer` up on a handle and hands it to libcurl; throws which option or call failed.
    private func start(_ transfer: Transfer) throws(CurlError) -> CurlEasy {
        let easy: CurlEasy
        if let kept = idle.popLast() {
            easy = kept
        } else {
            easy = try CurlEasy()
            try prepare(easy)
        }
        // A handle whose set-up failed is not kept: its options are in whatever state the failed call left them
        // (libcurl clears every allowed scheme when one name in a list is wrong).
        try transfer.setup(easy)
        try multi.add(easy)
        return easy
    }

    /// Answers every transfer under way with `result`: the multi handle failed under them, or the loop is stopping.
    private func failAll(_ active: inout [ObjectIdentifier: Transfer], with result: CurlResult) {
        for easy in multi.removeAll() {
            retire(easy)
            active.removeValue(forKey: ObjectIdentifier(easy))?.answer(result)
        }
        for transfer in active.values { transfer.answer(result) }
        active.removeAll()
    }

    /// Keeps a handle whose transfer is done for the next one, up to `maxIdle` of them.
    private func retire(_ easy: CurlEasy) {
        if idle.count < Self.maxIdle { idle.append(easy) }
    }
}
