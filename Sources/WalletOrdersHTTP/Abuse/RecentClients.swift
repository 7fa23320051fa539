import Synchronization

/// Clients a check succeeded for lately, in bounded memory (the same two generations as `RateLimiter`).
final class RecentClients: Sendable {
    private let entries: Mutex<Generations<Void>>

    init(capacity: Int) {
        entries = Mutex(Generations(capacity: max(2, capacity)))
    }

    func insert(_ key: String) {
        entries.withLock { $0.insert(key, ()) }
    }

    func contains(_ key: String) -> Bool {
        entries.withLock { $0.peek(key) != nil }
    }
}
