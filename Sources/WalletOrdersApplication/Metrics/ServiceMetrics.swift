import Foundation
import Prometheus
import Synchronization
import WalletOrdersHTTP
import WalletOrdersService
import WalletOrdersStore

/// The service's Prometheus metrics: requests by route and status, push outcomes, package builds and cache hits,
/// and at each scrape the outbox read from the database. One registry per service, no global state.
public final class ServiceMetrics: HTTPMetrics, Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let packageBuilds: Counter
    private let packageCacheHits: Counter
    private let packageAssemblies: Counter
    private let packageResigns: Counter
    private let fetchStoreReads: Counter
    private let merchantWriteWaits: Counter
    private let registrationsRefused: Counter
    private let clientConnectionsRefused: Counter
    /// The merchants that have a label of their own, at most `maxMerchantLabels`; the others share `other`.
    private let merchantLabels = Mutex<Set<String>>([])
    /// Series per merchant stop at this many merchants, so that a platform of thousands keeps `/metrics` small.
    public static let maxMerchantLabels = 100

    public init() {
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
    }

    /// `wallet_orders_<metric>[_<unit>]`, with its help text.
    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_orders", metricName: metric, unitName: unit, helpText: help)
    }

    public func requestServed(route: String, method: String, status: Int) {
        registry.makeCounter(
            descriptor: Self.name("http_requests", "total", "HTTP requests by route pattern, method and status"),
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
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
        registry.makeCounter(
            descriptor: Self.name("rate_limited_requests", "total", "Requests refused by a rate limit"),
            labels: [("limit", limit)]
        ).increment()
    }

    /// Counts a connection closed because its client was too slow to send a request's head or body.
    public func slowClientClosed(_ phase: SlowClientPhase) {
        registry.makeCounter(
            descriptor: Self.name(
                "slow_client_closes",
                "total",
                "Connections closed for sending a request's head or body too slowly"
            ),
            labels: [("phase", phase.rawValue)]
        ).increment()
    }

    /// Counts a connection closed on arrival because its client already held as many as it may.
    public func clientConnectionRefused() {
        clientConnectionsRefused.increment()
    }

    /// Counts what became of a round of pushes.
    public func pushesFinished(_ outcomes: [PushOutcome]) {
        countAttempts(
            "push_attempts",
            "Push attempts by outcome",
            outcomes.map { outcome in
                switch outcome {
                case .delivered: "delivered"
                case .retry: "retry"
                case .unsent: "unsent"
                case .failed: "failed"
                case .tokenRejected: "token_rejected"
                }
            }
        )
    }

    /// Counts what became of a round of webhook deliveries.
    public func webhooksFinished(_ outcomes: [WebhookOutcome]) {
        countAttempts(
            "webhook_attempts",
            "Webhook delivery attempts by outcome",
            outcomes.map { outcome in
                switch outcome {
                case .delivered: "delivered"
                case .retry: "retry"
                case .failed: "failed"
                }
            }
        )
    }

    /// Adds each of `outcomes` to the counter `<name>_total`, labelled by outcome.
    private func countAttempts(_ name: String, _ help: String, _ outcomes: [String]) {
        for outcome in outcomes {
            registry.makeCounter(descriptor: Self.name(name, "total", help), labels: [("outcome", outcome)]).increment()
        }
    }

    /// The label of merchant `slug`: itself, for the first `maxMerchantLabels` merchants seen (the default one
    /// among them), `other` for the rest.
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

    /// The text exposition, with what was read for this scrape.
    public func exposition(_ scrape: MetricsScrape) -> String {
        // What each merchant holds, against its limits: the merchants with the most orders get series of their own.
        var held: [String: (orders: Int, assetBytes: Int, maxOrders: Int?, maxAssetBytes: Int?)] = [:]
        let largest = scrape.merchants.sorted { $0.usage.orders > $1.usage.orders }
        for (rank, merchant) in largest.enumerated() {
            let label = rank < Self.maxMerchantLabels ? merchant.slug : "other"
            var entry = held[label] ?? (0, 0, nil, nil)
            entry.orders += merchant.usage.orders
            entry.assetBytes += merchant.usage.assetBytes
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
        registry.makeGauge(descriptor: Self.name("merchants", "", "Merchants the service serves")).set(Double(scrape.merchants.count))
        for (name, limit, tracked) in scrape.rateLimits {
            let labels = [("limit", name)]
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
        registry.makeGauge(descriptor: Self.name("device_log", "bytes", "What the device log entries add up to"))
            .set(Double(scrape.logBytes))
        registry.makeGauge(descriptor: Self.name("device_log_max", "bytes", "The most the device log entries may add up to"))
            .set(Double(scrape.logLimits.maxTotalBytes))
        for status in PushStatus.allCases {
            registry.makeGauge(
                descriptor: Self.name("pushes", "", "Pushes in the outbox by status"),
                labels: [("status", status.rawValue)]
            ).set(Double(scrape.pushes[status]))
        }
        registry.makeGauge(descriptor: Self.name("outbox_depth", "", "Pushes waiting to be sent (pending or sending)"))
            .set(Double(scrape.pushes.outboxDepth))
        return registry.emitToString()
    }
}
