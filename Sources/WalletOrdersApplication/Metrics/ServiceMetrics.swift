import Foundation
import Prometheus
import Synchronization
import WalletOrdersAPNS
import WalletOrdersHTTP
import WalletOrdersPush
import WalletOrdersService
import WalletOrdersStore

/// The service's Prometheus metrics: requests by route and status and their durations, push outcomes and APNs'
/// refusals of the credentials, package builds and cache hits, when the certificates expire, and at each scrape
/// whether the database answers and the outbox read from it. One registry per service, no global state.
public final class ServiceMetrics: HTTPMetrics, Sendable {
    let registry = PrometheusCollectorRegistry()
    private let packageBuilds: Counter
    private let packageCacheHits: Counter
    private let packageAssemblies: Counter
    private let packageResigns: Counter
    private let fetchStoreReads: Counter
    private let merchantWriteWaits: Counter
    private let registrationsRefused: Counter
    private let clientConnectionsRefused: Counter
    private let requestSeries = Mutex<[RequestSeries: RequestCollectors]>([:])
    /// The merchants that have a label of their own, at most `maxMerchantLabels`; the others share `other`.
    private let merchantLabels = Mutex<Set<String>>([])
    /// Series per merchant stop at this many merchants, so that a platform of thousands keeps `/metrics` small.
    public static let maxMerchantLabels = 100

    /// Request durations' bucket bounds: a cached fetch takes a millisecond, a signature tens, an import seconds.
    static let requestBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    /// APNs answers a round in tens of milliseconds; seconds mean a slow network or a connection made anew.
    static let pushSendBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
    ]
    /// What became of a push, as `wallet_orders_push_attempts_total` labels it.
    static let pushOutcomes = ["delivered", "retry", "failed", "token_rejected"]
    /// What became of a webhook delivery, as `wallet_orders_webhook_attempts_total` labels it.
    static let webhookOutcomes = ["delivered", "retry", "failed"]

    /// Metrics for a service that pushes for `pushOrderTypes` and signs with `certificates`. Every push and webhook
    /// outcome, every refusal of each order type's APNs credentials and every slow-client close starts at 0 (each
    /// rate limit's refusals from the first scrape), so that a rate over them counts the first one too, and each
    /// series is there for an alert or a dashboard to read.
    public init(pushOrderTypes: [String] = [], certificates: [CertificateExpiry] = []) {
        packageBuilds = registry.makeCounter(descriptor: Self.name("package_builds", "total", "Signed .order packages built"))
        packageCacheHits = registry.makeCounter(
            descriptor: Self.name("package_cache_hits", "total", "Package requests answered with a stored package")
        )
        packageAssemblies = registry.makeCounter(
            descriptor: Self.name(
                "package_assemblies",
                "total",
                "Packages assembled again from their stored seal, without signing"
            )
        )
        packageResigns = registry.makeCounter(
            descriptor: Self.name(
                "package_resigns",
                "total",
                "Fetches that signed an order again: no seal stored, or the template or certificates changed"
            )
        )
        fetchStoreReads = registry.makeCounter(
            descriptor: Self.name(
                "fetch_store_reads",
                "total",
                "Package requests that read the database: the in-memory fetch cache missed or was off"
            )
        )
        merchantWriteWaits = registry.makeCounter(
            descriptor: Self.name(
                "merchant_write_waits",
                "total",
                "Merchant writes that waited for a turn: device requests come first"
            )
        )
        registrationsRefused = registry.makeCounter(
            descriptor: Self.name(
                "registrations_refused",
                "total",
                "New device registrations refused (429): the order had maxDevicesPerOrder devices already"
            )
        )
        clientConnectionsRefused = registry.makeCounter(
            descriptor: Self.name(
                "client_connections_refused",
                "total",
                "Connections closed as soon as they were accepted: their client already held maxConnectionsPerClient"
            )
        )
        for outcome in Self.pushOutcomes { pushAttempts(outcome).increment(by: Int64(0)) }
        for outcome in Self.webhookOutcomes { webhookAttempts(outcome).increment(by: Int64(0)) }
        for phase in SlowClientPhase.allCases { slowClientCloses(phase).increment(by: Int64(0)) }
        for type in pushOrderTypes {
            for reason in APNSReason.documented where reason.refusesCredentials {
                refusedCredentials(type, reason).increment(by: Int64(0))
            }
        }
        for certificate in certificates {
            registry.makeGauge(
                descriptor: Self.name(
                    "certificate_expiry_timestamp",
                    "seconds",
                    "When a certificate stops being valid (Unix time), by order type and certificate: signing, wwdr, apns"
                ),
                labels: [("order_type", certificate.orderType), ("certificate", certificate.kind.rawValue)]
            ).set(certificate.notAfter.timeIntervalSince1970)
        }
    }

    /// `wallet_orders_<metric>[_<unit>]`, with its help text.
    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_orders", metricName: metric, unitName: unit, helpText: help)
    }

    public func requestServed(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestSeries(route: route, method: method, status: status)
        let series = requestSeries.withLock { $0[key] } ?? makeRequestSeries(key)
        series.count.increment()
        series.duration.record(duration)
    }

    /// A request's route pattern, method and status: the labels of its count (its duration is by route and method).
    private struct RequestSeries: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// The counter and the duration histogram that requests of one route, method and status go to.
    private struct RequestCollectors: Sendable {
        let count: Counter
        let duration: DurationHistogram
    }

    /// Made once for each route, method and status, then found by one lookup: the registry's way builds the metric's
    /// name and checks its labels and help text on every call, which took a sixth of a warm fetch's time.
    private func makeRequestSeries(_ key: RequestSeries) -> RequestCollectors {
        let collectors = RequestCollectors(
            count: registry.makeCounter(
                descriptor: Self.name("http_requests", "total", "HTTP requests by route pattern, method and status"),
                labels: [("route", key.route), ("method", key.method), ("status", String(key.status))]
            ),
            duration: registry.makeDurationHistogram(
                descriptor: Self.name(
                    "http_request_duration",
                    "seconds",
                    "Seconds from a request's arrival to its answer, by route pattern and method"
                ),
                labels: [("route", key.route), ("method", key.method)],
                buckets: Self.requestBuckets
            )
        )
        requestSeries.withLock { $0[key] = collectors }
        return collectors
    }

    /// The order service's hooks, counting package builds and cache hits here.
    public var serviceCounters: OrderService.Counters {
        OrderService.Counters(
            packageBuilt: { [packageBuilds] in packageBuilds.increment() },
            packageCacheHit: { [packageCacheHits] in packageCacheHits.increment() },
            packageAssembled: { [packageAssemblies] in packageAssemblies.increment() },
            packageResigned: { [packageResigns] in packageResigns.increment() },
            deviceLogs: { [weak self] report in self?.deviceLogs(report) },
            fetchReadStore: { [fetchStoreReads] in fetchStoreReads.increment() },
            merchantWriteWaited: { [merchantWriteWaits] in merchantWriteWaits.increment() },
            registrationRefused: { [registrationsRefused] in registrationsRefused.increment() }
        )
    }

    /// Counts what became of one request's device log messages.
    func deviceLogs(_ report: DeviceLogReport) {
        let kept = Self.name("device_log_messages", "total", "Device log messages stored as new entries or folded into one")
        registry.makeCounter(descriptor: kept, labels: [("outcome", "stored")]).increment(by: Int64(report.stored))
        registry.makeCounter(descriptor: kept, labels: [("outcome", "folded")]).increment(by: Int64(report.folded))
        registry.makeCounter(descriptor: Self.name("device_log_truncated", "total", "Device log messages cut to the entry cap"))
            .increment(by: Int64(report.truncated))
        let dropped = Self.name("device_log_dropped", "total", "Device log messages or entries dropped, by reason")
        for (reason, count) in [
            ("over_request_cap", report.droppedOverRequestCap), ("evicted", report.evicted),
            ("store_failed", report.droppedStoreFailed),
        ] {
            registry.makeCounter(descriptor: dropped, labels: [("reason", reason)]).increment(by: Int64(count))
        }
    }

    /// Counts a device log request dropped whole, unread (`rate_limited`) or unreadable (`unreadable`).
    public func deviceLogRequestDropped(_ reason: String) {
        registry.makeCounter(
            descriptor: Self.name(
                "device_log_requests_dropped",
                "total",
                "Device log requests whose messages were all dropped, by reason"
            ),
            labels: [("reason", reason)]
        ).increment()
    }

    /// Counts a request refused by the rate limit `limit`.
    public func rateLimited(_ limit: String) {
        rateLimitedRequests(limit).increment()
    }

    private func rateLimitedRequests(_ limit: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("rate_limited_requests", "total", "Requests refused by a rate limit"),
            labels: [("limit", limit)]
        )
    }

    /// Counts a connection closed because its client was too slow to send a request's head or body.
    public func slowClientClosed(_ phase: SlowClientPhase) {
        slowClientCloses(phase).increment()
    }

    private func slowClientCloses(_ phase: SlowClientPhase) -> Counter {
        registry.makeCounter(
            descriptor: Self.name(
                "slow_client_closes",
                "total",
                "Connections closed for sending a request's head or body too slowly"
            ),
            labels: [("phase", phase.rawValue)]
        )
    }

    /// Counts a connection closed on arrival because its client already held as many as it may.
    public func clientConnectionRefused() {
        clientConnectionsRefused.increment()
    }

    private func merchantLabel(_ slug: String) -> String {
        merchantLabels.withLock { labels in
            if labels.contains(slug) { return slug }
            guard labels.count < Self.maxMerchantLabels else { return "other" }
            labels.insert(slug)
            return slug
        }
    }

    public func merchantRequest(_ slug: String) {
        registry.makeCounter(
            descriptor: Self.name("merchant_requests", "total", "Merchant API requests by merchant"),
            labels: [("merchant", merchantLabel(slug))]
        ).increment()
    }

    public func merchantLimited(_ slug: String, limit: String) {
        registry.makeCounter(
            descriptor: Self.name("merchant_limited", "total", "Merchant requests and writes refused by a limit, by merchant and limit"),
            labels: [("merchant", merchantLabel(slug)), ("limit", limit)]
        ).increment()
    }

    /// The text exposition, with what was read for this scrape. While the database cannot be reached, what is read
    /// from it keeps the values of the last scrape that could read it.
    public func exposition(_ scrape: MetricsScrape) -> String {
        registry.makeGauge(
            descriptor: Self.name("database_reachable", "", "1 when the database answered at this scrape, 0 when it did not")
        ).set(Double(scrape.stored == nil ? 0 : 1))
        if let stored = scrape.stored { record(stored) }
        for (name, limit, tracked) in scrape.rateLimits {
            let labels = [("limit", name)]
            rateLimitedRequests(name).increment(by: Int64(0))
            registry.makeGauge(
                descriptor: Self.name("rate_limit_burst", "", "Requests a client may make at once, by limit"),
                labels: labels
            ).set(Double(limit.burst))
            registry.makeGauge(
                descriptor: Self.name("rate_limit_per_second", "", "Requests a client regains per second, by limit"),
                labels: labels
            ).set(limit.perSecond)
            registry.makeGauge(
                descriptor: Self.name("rate_limit_clients", "", "Clients a limiter remembers now, by limit"),
                labels: labels
            ).set(Double(tracked))
        }
        registry.makeGauge(descriptor: Self.name("device_log_max", "bytes", "The most the device log entries may add up to"))
            .set(Double(scrape.logLimits.maxTotalBytes))
        return registry.emitToString()
    }

    /// Sets what was read from the database: the merchants, the device log's size and the outbox.
    private func record(_ stored: MetricsScrape.Stored) {
        // What each merchant holds, against its limits: the merchants with the most orders get series of their own.
        var held: [String: (orders: Int, assetBytes: Int, historyBytes: Int, maxOrders: Int?, maxAssetBytes: Int?)] = [:]
        let largest = stored.merchants.sorted { $0.usage.orders > $1.usage.orders }
        for (rank, merchant) in largest.enumerated() {
            let label = rank < Self.maxMerchantLabels ? merchant.slug : "other"
            var entry = held[label] ?? (0, 0, 0, nil, nil)
            entry.orders += merchant.usage.orders
            entry.assetBytes += merchant.usage.assetBytes
            entry.historyBytes += merchant.usage.historyBytes
            if label != "other" {
                entry.maxOrders = merchant.limits.maxOrders
                entry.maxAssetBytes = merchant.limits.maxAssetBytes
            }
            held[label] = entry
        }
        for (label, entry) in held {
            let labels = [("merchant", label)]
            registry.makeGauge(descriptor: Self.name("merchant_orders", "", "Orders a merchant stores"), labels: labels)
                .set(Double(entry.orders))
            registry.makeGauge(
                descriptor: Self.name("merchant_asset", "bytes", "Bytes of order files a merchant stores"),
                labels: labels
            ).set(Double(entry.assetBytes))
            registry.makeGauge(
                descriptor: Self.name("merchant_history", "bytes", "Bytes of version history a merchant stores"),
                labels: labels
            ).set(Double(entry.historyBytes))
            if let max = entry.maxOrders {
                registry.makeGauge(descriptor: Self.name("merchant_max_orders", "", "A merchant's maxOrders"), labels: labels)
                    .set(Double(max))
            }
            if let max = entry.maxAssetBytes {
                registry.makeGauge(
                    descriptor: Self.name("merchant_max_asset", "bytes", "A merchant's maxAssetBytes"),
                    labels: labels
                ).set(Double(max))
            }
        }
        registry.makeGauge(descriptor: Self.name("merchants", "", "Merchants the service serves")).set(Double(stored.merchants.count))
        registry.makeGauge(descriptor: Self.name("device_log", "bytes", "What the device log entries add up to"))
            .set(Double(stored.logBytes))
        for status in PushStatus.allCases {
            registry.makeGauge(
                descriptor: Self.name("pushes", "", "Pushes in the outbox by status"),
                labels: [("status", status.rawValue)]
            ).set(Double(stored.pushes[status]))
        }
        registry.makeGauge(descriptor: Self.name("outbox_depth", "", "Pushes waiting to be sent (pending or sending)"))
            .set(Double(stored.pushes.outboxDepth))
    }
}
