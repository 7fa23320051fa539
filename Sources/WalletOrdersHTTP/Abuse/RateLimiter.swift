import Synchronization

/// Token buckets per client (an address, a key digest), in bounded memory.
///
/// Buckets live in two generations: when the current one holds half of `capacity` clients, it becomes the
/// previous one and the one before is forgotten; a client found in the previous generation moves to the
/// current one. So at most `capacity` buckets are held, each lookup is O(1), and a client quiet for a whole
/// generation starts again with a full allowance, as it would have by then in most cases anyway.
final class RateLimiter: Sendable {
    /// Whether an action may go ahead, or how many seconds until it may.
    enum Decision: Equatable, Sendable {
        case allowed
        case limited(retryAfter: Int)
    }

    let limit: RateLimit
    let capacity: Int
    private let buckets: Mutex<Generations<Bucket>>

    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    init(_ limit: RateLimit, capacity: Int) {
        self.limit = limit
        self.capacity = max(2, capacity)
        buckets = Mutex(Generations(capacity: max(2, capacity)))
    }

    /// Takes one from `key`'s allowance; `.limited` (and nothing taken) when it is spent.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { generations in
            var bucket = refilled(generations.remove(key), now: now)
            defer { generations.insert(key, bucket) }
            guard bucket.tokens >= 1 else { return limited(bucket) }
            bucket.tokens -= 1
            return .allowed
        }
    }

    /// Whether `key`'s allowance is spent, taking nothing.
    func check(_ key: String, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { generations in
            guard let bucket = generations.peek(key) else { return .allowed }
            let current = refilled(bucket, now: now)
            return current.tokens >= 1 ? .allowed : limited(current)
        }
    }

    /// How many clients the limiter holds a bucket for.
    var trackedClients: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket?, now: ContinuousClock.Instant) -> Bucket {
        guard let bucket else { return Bucket(tokens: Double(limit.burst), updated: now) }
        let elapsed = max(0, (now - bucket.updated).seconds)
        return Bucket(tokens: min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond), updated: now)
    }

    private func limited(_ bucket: Bucket) -> Decision {
        .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up))))
    }
}
