import WalletOrdersService
import WalletOrdersStore

/// Where the HTTP layer counts what it sees, and what `/metrics` answers. The application's Prometheus registry
/// implements it; the HTTP layer knows no metrics library.
public protocol HTTPMetrics: Sendable {
    /// A request was answered, by route pattern (`unmatched` for none), method and status, `duration` after it came.
    func requestServed(route: String, method: String, status: Int, duration: Duration)
    /// A request was refused by the rate limit `limit` (`auth_failures`, `listing`, `merchant`, `log`).
    func rateLimited(_ limit: String)
    /// A connection was closed because its client sent a request's head or body too slowly.
    func slowClientClosed(_ phase: SlowClientPhase)
    /// A connection was closed as soon as it was accepted: its client already held `maxConnectionsPerClient`.
    func clientConnectionRefused()
    /// A merchant API request of the merchant `slug` was let through.
    func merchantRequest(_ slug: String)
    /// A request or write of the merchant `slug` was refused by one of its limits (`requestsPerSecond`, `maxOrders`,
    /// `maxAssetBytes`).
    func merchantLimited(_ slug: String, limit: String)
    /// A device log request's messages were all dropped: `rate_limited` or `unreadable`.
    func deviceLogRequestDropped(_ reason: String)
    /// The exposition `/metrics` serves, with what was read for this scrape.
    func exposition(_ scrape: MetricsScrape) -> String
}

/// What `/metrics` reads at each scrape: whether the database answers and, when it does, the outbox, the device log
/// and the merchants from it; the rate limits.
public struct MetricsScrape: Sendable {
    /// What was read from the database; nil when it could not be reached.
    public let stored: Stored?
    public let logLimits: DeviceLogLimits
    /// Each rate limit by the name it is counted under, with how many clients it remembers now.
    public let rateLimits: [(name: String, limit: RateLimit, trackedClients: Int)]

    /// What the database holds that `/metrics` shows.
    public struct Stored: Sendable {
        public let pushes: PushCounts
        public let logBytes: Int
        /// Every merchant, with what it holds and its limits.
        public let merchants: [Merchant]
    }
}
