/// What one client may ask of the service, and how long it may take to ask: the limits that keep anyone on the
/// internet from guessing tokens at speed, flooding the listing or the merchant API, or holding connections.
public struct ClientLimits: Sendable, Equatable {
    /// Failed `AppleOrder` authentications per client address; past it, 429 with `Retry-After`, except for orders
    /// the address authenticated to lately (a device using its right token is not slowed by a neighbour).
    public var authFailures: RateLimit? = RateLimit(burst: 30, per: .seconds(60))
    /// Changed-orders listings per client address.
    public var listing: RateLimit? = RateLimit(burst: 120, per: .seconds(60))
    /// Merchant API requests per merchant key.
    public var merchant: RateLimit? = RateLimit(burst: 1_000, per: .seconds(1))
    /// Log endpoint requests per client address; past it, the messages are dropped (and counted), still with 200.
    public var log: RateLimit? = RateLimit(burst: 60, per: .seconds(60))
    /// Downloads through order links per client address, found or not: a customer downloads an order or two.
    public var links: RateLimit? = RateLimit(burst: 30, per: .seconds(60))
    /// The most clients each limiter remembers; the memory of the limiters is bounded by it.
    public var trackedClients = 100_000
    /// A header a reverse proxy in front of the service sets to the client's address (`X-Forwarded-For`,
    /// `X-Real-IP`); without one, the socket's peer is the client. Set it only behind such a proxy.
    public var trustedProxyHeader: String?
    /// How long a client may take to send a request's head, from its first byte.
    public var headerTimeout: Duration? = .seconds(10)
    /// How long a client may take to send a request's body, from the end of its head.
    public var bodyTimeout: Duration? = .seconds(30)
    /// How long a keep-alive connection may sit with no request before it is closed.
    public var idleTimeout: Duration? = .seconds(60)
    /// The most connections open at once; past it, new ones wait in the listen backlog.
    public var maxConnections: Int? = 4_096
    /// The most connections one client address (an IPv6 /64) may hold at once; past it, a new one is closed as soon
    /// as it is accepted. Counted by the socket's peer: behind a reverse proxy, that is the proxy.
    public var maxConnectionsPerClient: Int? = 64

    public init() {}
}
