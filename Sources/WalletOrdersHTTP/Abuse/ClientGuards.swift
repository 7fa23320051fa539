import Hummingbird
import Synchronization
import WalletOrdersCrypto
import WalletOrdersService
import WalletOrdersStore

/// The rate limiters of one running service, shared by its routes, counting what they refuse into the metrics.
final class ClientGuards: Sendable {
    let limits: ClientLimits
    let authFailures: RateLimiter?
    /// Client and order pairs that authenticated lately: they are still served while the client's failures are
    /// over their limit.
    let authenticated: RecentClients
    let listing: RateLimiter?
    let merchant: RateLimiter?
    let log: RateLimiter?
    let links: RateLimiter?
    let metrics: any HTTPMetrics
    /// Limiters for merchants with a request rate of their own, by that rate.
    private let merchantRates = Mutex<[Int: RateLimiter]>([:])

    init(_ limits: ClientLimits, metrics: any HTTPMetrics) {
        self.limits = limits
        self.metrics = metrics
        let capacity = limits.trackedClients
        authFailures = limits.authFailures.map { RateLimiter($0, capacity: capacity) }
        authenticated = RecentClients(capacity: capacity)
        listing = limits.listing.map { RateLimiter($0, capacity: capacity) }
        merchant = limits.merchant.map { RateLimiter($0, capacity: capacity) }
        log = limits.log.map { RateLimiter($0, capacity: capacity) }
        links = limits.links.map { RateLimiter($0, capacity: capacity) }
    }

    /// The limiters by the name `/metrics` shows them under.
    var named: [(String, RateLimiter)] {
        [("auth_failures", authFailures), ("listing", listing), ("merchant", merchant), ("log", log), ("links", links)]
            .compactMap { name, limiter in limiter.map { (name, $0) } }
    }

    /// Takes one from `client`'s allowance on `limiter`; throws 429 when it is spent.
    func take(_ limiter: RateLimiter?, _ name: String, client: String?) throws {
        guard let limiter, let client else { return }
        if case .limited(let retryAfter) = limiter.take(ClientAddress.limiterKey(client)) {
            metrics.rateLimited(name)
            throw APIError.tooManyRequests(retryAfter: retryAfter)
        }
    }

    /// Runs `body`, an `AppleOrder` authentication of `client` for an order and what follows it. While the client's
    /// failures are over their limit, it answers 429 without checking anything, unless the client authenticated to
    /// this order lately; a failure past the limit answers 429 too.
    func authenticating<Result: Sendable>(
        client: String?,
        type: String,
        id: String,
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard let authFailures, let client else { return try await body() }
        let key = ClientAddress.limiterKey(client)
        let pair = "\(key) \(type) \(id)"
        if case .limited(let retryAfter) = authFailures.check(key), !authenticated.contains(pair) {
            metrics.rateLimited("auth_failures")
            throw APIError.tooManyRequests(retryAfter: retryAfter)
        }
        do {
            let result = try await body()
            authenticated.insert(pair)
            return result
        } catch OrderServiceError.unauthorized {
            if case .limited(let retryAfter) = authFailures.take(key) {
                metrics.rateLimited("auth_failures")
                throw APIError.tooManyRequests(retryAfter: retryAfter)
            }
            throw OrderServiceError.unauthorized
        }
    }

    /// Runs `body`, the check of a merchant, admin or operator key `key` sent by `client`, which answers who the key
    /// speaks for (nil: nobody). While the client's failed authentications are over their limit, answers 429 without
    /// checking, unless the client authenticated with this very key lately (a shop's backend is not locked out by a
    /// neighbour guessing); a failure answers 401, or 429 once past the limit.
    func authenticatingKey<Holder: Sendable>(
        client: String?,
        key: String?,
        _ body: () async throws -> Holder?
    ) async throws
        -> Holder
    {
        let address = client.map(ClientAddress.limiterKey)
        // The pair is remembered by a digest of the key, never the key.
        let pair = address.flatMap { address in key.map { "\(address) \(ConstantTime.digest($0))" } }
        if let authFailures, let address, case .limited(let retryAfter) = authFailures.check(address),
            !(pair.map(authenticated.contains) ?? false)
        {
            metrics.rateLimited("auth_failures")
            throw APIError.tooManyRequests(retryAfter: retryAfter)
        }
        if let holder = try await body() {
            if let pair { authenticated.insert(pair) }
            return holder
        }
        if let authFailures, let address, case .limited(let retryAfter) = authFailures.take(address) {
            metrics.rateLimited("auth_failures")
            throw APIError.tooManyRequests(retryAfter: retryAfter)
        }
        throw APIError.unauthorized
    }

    /// Takes one from `partner`'s allowance: the service's merchant limit, counted for the partner.
    func takePartner(_ partner: Partner) throws {
        guard let merchant else { return }
        if case .limited(let retryAfter) = merchant.take("partner-\(partner.id)") {
            metrics.rateLimited("merchant")
            throw APIError.tooManyRequests(retryAfter: retryAfter)
        }
    }

    /// Takes one from `merchant`'s allowance: its own request rate, or the service's merchant limit; 429 when spent.
    func takeMerchant(_ merchant: Merchant) throws {
        let limiter: RateLimiter?
        if let rate = merchant.limits.requestsPerSecond {
            limiter = merchantRates.withLock { limiters in
                if let existing = limiters[rate] { return existing }
                let made = RateLimiter(RateLimit(burst: rate, per: .seconds(1)), capacity: limits.trackedClients)
                limiters[rate] = made
                return made
            }
        } else {
            limiter = self.merchant
        }
        guard let limiter else { return }
        if case .limited(let retryAfter) = limiter.take("merchant-\(merchant.id)") {
            metrics.rateLimited("merchant")
            metrics.merchantLimited(merchant.slug, limit: "requestsPerSecond")
            throw APIError(
                .tooManyRequests,
                "merchant \(merchant.slug) is over its request rate (\(limiter.limit)); try again in \(retryAfter) s",
                retryAfter: retryAfter
            )
        }
    }
}
