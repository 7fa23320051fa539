import Synchronization

/// The lines of one import under way: at most `capacity` started and not yet taken, never two naming the same order
/// at once, and their results taken in the order the lines were started, whatever order they finish in.
///
/// One reader starts lines (`start`) and one taker takes results (`next`); each line's work finishes it (`finish`).
/// A line waits to start while the window is full, so memory stays bounded however long the import, and while an
/// earlier line naming the same order is under way, so that the later line's content is the one that stays.
final class ImportWindow<Value: Sendable>: Sendable {
    let capacity: Int

    private struct State {
        /// Lines started, and results taken: the next line's index and the next result's.
        var started = 0
        var taken = 0
        /// Results finished and not yet taken, by index.
        var finished: [Int: Value] = [:]
        /// The keys of lines started and not finished.
        var keys: Set<String> = []
        /// No more lines will start.
        var closed = false
        var cancelled = false
        /// The reader waiting to start a line with this key.
        var reader: (key: String?, continuation: CheckedContinuation<Int?, Never>)?
        /// The taker waiting for the next result.
        var taker: CheckedContinuation<[Value]?, Never>?
    }

    /// Continuations to resume once the lock is released.
    private struct Wakeups {
        var reader: (CheckedContinuation<Int?, Never>, Int?)?
        var taker: (CheckedContinuation<[Value]?, Never>, [Value]?)?

        func resume() {
            if let (continuation, index) = reader { continuation.resume(returning: index) }
            if let (continuation, values) = taker { continuation.resume(returning: values) }
        }
    }

    private let state = Mutex(State())

    /// A window of `capacity` lines (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Waits until a line with `key` (nil: one that names no order) may start, and answers its index; nil once the
    /// window is cancelled, or the calling task is.
    func start(key: String?) async -> Int? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let index: Int?? = state.withLock { state in
                    if state.cancelled { return .some(nil) }
                    guard hasRoom(state, for: key) else {
                        state.reader = (key, continuation)
                        return .none
                    }
                    return .some(Self.admit(&state, key: key))
                }
                if let index { continuation.resume(returning: index) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Records the result of the line started as `index` with `key`.
    func finish(_ index: Int, key: String?, _ value: Value) {
        state.withLock { state in
            if let key { state.keys.remove(key) }
            state.finished[index] = value
            return ready(&state)
        }.resume()
    }

    /// Waits for the next results in order: every one finished from the next on, at least one; nil once every line
    /// started is taken and no more will start, or the window is cancelled, or the calling task is.
    func next() async -> [Value]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Value]?, Never>) in
                let wakeups = state.withLock { state in
                    state.taker = continuation
                    return ready(&state)
                }
                wakeups.resume()
            }
        } onCancel: {
            cancel()
        }
    }

    /// No more lines will start.
    func close() {
        state.withLock { state in
            state.closed = true
            return ready(&state)
        }.resume()
    }

    /// Ends the window: a reader waiting to start is answered nil, and so is a taker waiting for results.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return ready(&state)
        }.resume()
    }

    private func hasRoom(_ state: State, for key: String?) -> Bool {
        state.started - state.taken < capacity && (key.map { !state.keys.contains($0) } ?? true)
    }

    private static func admit(_ state: inout State, key: String?) -> Int {
        defer { state.started += 1 }
        if let key { state.keys.insert(key) }
        return state.started
    }

    /// Who can go on now: the taker when the next result is in (or there will be none), then the reader when there is
    /// room for its line.
    private func ready(_ state: inout State) -> Wakeups {
        var wakeups = Wakeups()
        if let taker = state.taker {
            var values: [Value] = []
            while let value = state.finished.removeValue(forKey: state.taken) {
                values.append(value)
                state.taken += 1
            }
            if !values.isEmpty {
                wakeups.taker = (taker, values)
                state.taker = nil
            } else if state.cancelled || (state.closed && state.taken == state.started) {
                wakeups.taker = (taker, nil)
                state.taker = nil
            }
        }
        if let reader = state.reader {
            if state.cancelled {
                wakeups.reader = (reader.continuation, nil)
                state.reader = nil
            } else if hasRoom(state, for: reader.key) {
                wakeups.reader = (reader.continuation, Self.admit(&state, key: reader.key))
                state.reader = nil
            }
        }
        return wakeups
    }

    /// Lines started and results taken so far (tests read it).
    var counts: (started: Int, taken: Int) {
        state.withLock { ($0.started, $0.taken) }
    }
}
