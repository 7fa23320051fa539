import Synchronization

/// Lets one task at a time through per key, the others waiting their turn in order: writes to one order on
/// this instance queue instead of racing (signing a version another write is about to replace is wasted work).
/// Writes from other instances are still kept apart by the store's compare-and-swap.
final class KeyedLock: Sendable {
    /// The keys held now, each with the tasks waiting for it, first come first served.
    private let state = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Runs `body` holding `key`.
    func withLock<Result>(_ key: String, _ body: () async throws -> Result) async throws -> Result {
        await acquire(key)
        defer { release(key) }
        return try await body()
    }

    private func acquire(_ key: String) async {
        await withCheckedContinuation { continuation in
            let free = state.withLock { held -> Bool in
                guard held[key] != nil else {
                    held[key] = []
                    return true
                }
                held[key]?.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    private func release(_ key: String) {
        // The next waiter, if any, takes the key over; otherwise it is free.
        let next = state.withLock { held -> CheckedContinuation<Void, Never>? in
            guard var waiters = held[key], !waiters.isEmpty else {
                held[key] = nil
                return nil
            }
            let first = waiters.removeFirst()
            held[key] = waiters
            return first
        }
        next?.resume()
    }
}
