import Synchronization

/// Device requests first: while Wallet is being answered, merchant writes run a few at a time.
///
/// Wallet's requests (registration, the listing, the order fetch, logs) come from people holding their phones; a
/// merchant's writes come from a backend that can wait a moment. Both need the same cores, and a merchant update
/// costs about three registrations' worth of CPU. Lowering the write pool's priority (`WritePool`) covers only
/// half of that: the commit, the log sync and the HTTP work run at normal priority wherever they run. So this
/// bounds how many merchant writes are under way at once:
/// - `busyLimit` (one per core) while a device request is in flight or finished less than `window` ago;
/// - `idleLimit` otherwise. A write spends much of its time waiting for the database and the log sync, so with no
///   device to answer, more of them at once keep the cores busy.
///
/// A write over the limit waits its turn, first come first served. None is refused, and none starves: `busyLimit`
/// writes can always run.
final class DevicePriority: Sendable {
    let busyLimit: Int
    let idleLimit: Int
    let window: Duration
    private struct State {
        /// Device requests being answered.
        var devices = 0
        /// When the last device request finished, and how many have.
        var lastDevice: ContinuousClock.Instant?
        var answered = 0
        /// Merchant writes under way.
        var writes = 0
        /// Merchant writes waiting for their turn, oldest first.
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// A gate letting `busyLimit` merchant writes run beside device requests and `idleLimit` without (both at
    /// least 1); devices count as present for `window` after their last request.
    init(busyLimit: Int, idleLimit: Int, window: Duration) {
        self.busyLimit = max(1, busyLimit)
        self.idleLimit = max(self.busyLimit, idleLimit)
        self.window = window
    }

    /// The gate for a machine of `cores` cores: one merchant write per core beside device requests, four per core
    /// without; devices count as present for 10 ms after their last request.
    ///
    /// Counting only requests in flight was not enough: a registration spends most of its time in the network and
    /// the HTTP layer, and merchant writes let in during those gaps held the cores when it came back (measured in
    /// BENCHMARKS.md). Ten milliseconds covers those gaps whenever devices keep the server busy, and a trickle of
    /// requests (a few per second) still leaves merchant writes their full number most of the time.
    convenience init(cores: Int) {
        self.init(busyLimit: cores, idleLimit: 4 * cores, window: .milliseconds(10))
    }

    /// Runs a device request's `body`, holding merchant writes to `busyLimit` meanwhile.
    func device<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        state.withLock { $0.devices += 1 }
        defer {
            let now = ContinuousClock.now
            let admitted = state.withLock { state in
                state.devices -= 1
                state.answered += 1
                state.lastDevice = now
                return admit(&state, at: now)
            }
            for continuation in admitted { continuation.resume() }
        }
        return try await body()
    }

    /// Runs a merchant write's `body` once there is room for it; `waited` is called first when it had to wait.
    func merchantWrite<Result>(waited: () -> Void = {}, _ body: () async throws -> Result) async rethrows -> Result {
        let now = ContinuousClock.now
        let entered = state.withLock { state in
            guard state.waiting.isEmpty && hasRoom(state, at: now) else { return false }
            state.writes += 1
            return true
        }
        if !entered {
            waited()
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state in
                    state.waiting.append(continuation)
                    // Room may have opened between the check above and now.
                    return admit(&state, at: now)
                }
                for continuation in admitted { continuation.resume() }
            }
        }
        defer {
            let now = ContinuousClock.now
            let admitted = state.withLock { state in
                state.writes -= 1
                return admit(&state, at: now)
            }
            for continuation in admitted { continuation.resume() }
        }
        return try await body()
    }

    private func hasRoom(_ state: State, at now: ContinuousClock.Instant) -> Bool {
        let busy = state.devices > 0 || state.lastDevice.map { now - $0 < window } ?? false
        return state.writes < (busy ? busyLimit : idleLimit)
    }

    /// Lets waiting writes in while there is room; answers them, to be resumed outside the lock.
    private func admit(_ state: inout State, at now: ContinuousClock.Instant) -> [CheckedContinuation<Void, Never>] {
        var admitted: [CheckedContinuation<Void, Never>] = []
        while !state.waiting.isEmpty && hasRoom(state, at: now) {
            admitted.append(state.waiting.removeFirst())
            state.writes += 1
        }
        return admitted
    }

    /// Device requests in flight and answered so far, merchant writes under way and waiting (tests read it).
    var counts: (devices: Int, answered: Int, writes: Int, waiting: Int) {
        state.withLock { ($0.devices, $0.answered, $0.writes, $0.waiting.count) }
    }
}
