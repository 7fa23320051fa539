import Foundation
import Logging
import ServiceLifecycle
import WalletOrdersPush
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersWebhookModel
import WalletOrdersWebhooks

/// Turns a configuration into a ready service: database opened and migrated, order types loaded and checked,
/// and, when nothing is configured, development keys and a merchant key made in the data folder.
public struct ServiceBootstrap: Sendable {
    public let configuration: ServiceConfiguration
    public let service: OrderService
    public let metrics: ServiceMetrics
    /// The store the service uses; closed by `services` when they stop.
    public let store: any OrderStore
    /// The push worker, when any order type has APNs credentials.
    public let pushWorker: PushWorker?
    /// The webhook worker: always, since any merchant may add an endpoint.
    public let webhookWorker: WebhookWorker
    /// What sends spans to the collector, when `tracingEndpoint` is set.
    public let tracing: (any Service)?
    /// The clock the service, its workers and its provider tokens read: the store's (see `StoreClock`).
    public var clock: StoreClock { store.clock }
    /// Lines for the person starting the service (what was set up for development, and how to use it).
    public let notes: [String]

    /// What runs beside the HTTP server: the span exporter when tracing is on (listed first, so it stops last and
    /// sends the spans of everything else's stopping), the store's upkeep (next, so it closes the store after the
    /// workers), the store's clock, the look for stalled parcels, the push worker and the webhook worker.
    public var services: [any Service] {
        (tracing.map { [$0] } ?? []) + [StoreUpkeepService(store: store), StoreClockService(clock: clock, store: store)]
            + [StalledParcelService(service: service)]
            + (pushWorker.map { [OutboxWorkerService(worker: $0)] } ?? [])
            + [OutboxWorkerService(worker: webhookWorker)]
    }

    /// A ready service for `configuration`; `extraMerchantKeys` speak for the default merchant beside the
    /// configured ones (the playground page's own key).
    public static func make(
        configuration: ServiceConfiguration,
        logger: Logger,
        extraMerchantKeys: [String] = [],
        now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> ServiceBootstrap {
        var configuration = configuration
        var notes: [String] = []
        let dataFolder = configuration.dataFolder
        if configuration.orderTypes.isEmpty, let development = try await developmentOrderType(configuration, create: true) {
            configuration.orderTypes = [development.type]
            notes += development.notes
        }
        if configuration.merchantKeys.isEmpty {
            let file = dataFolder.appendingPathComponent("merchant-key").path
            if let existing = try? String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                existing.count >= 16
            {
                configuration.merchantKeys = [existing]
                notes.append("Merchant API key: the development key in \(file).")
            } else {
                let key = Random.token()
                try FileManager.default.createDirectory(at: dataFolder, withIntermediateDirectories: true)
                guard
                    FileManager.default.createFile(
                        atPath: file,
                        contents: Data((key + "\n").utf8),
                        attributes: [.posixPermissions: 0o600]
                    )
                else {
                    throw ConfigurationError("cannot write the development merchant key to \(file)")
                }
                configuration.merchantKeys = [key]
                notes.append("No merchant key configured: made a development key, stored in \(file):")
                notes.append("    \(key)")
            }
        }
        // `now` is this host's wall clock; what the service writes and compares is read from the store's (once open).
        let clock = StoreClock(wall: now)
        let report = await ServiceChecks.run(configuration, now: now(), clock: { clock.now() }, logger: logger)
        let problems = report.problems
        guard problems.isEmpty else {
            throw ConfigurationError(problems.count == 1 ? problems[0] : "\n  " + problems.joined(separator: "\n  "))
        }
        for finding in report.findings where finding.level == .warning { logger.warning("\(finding.message)") }
        let store = try await StoreFactory.open(configuration.database, logger: logger, clock: clock)
        do {
            let applied = try await store.migrate()
            if !applied.isEmpty { logger.info("applied migrations", metadata: ["migrations": "\(applied.joined(separator: ", "))"]) }
        } catch {
            await store.close()
            throw ConfigurationError("the database \(configuration.database) cannot be migrated: \(error)")
        }
        do {
            try await clock.synchronize(with: store)
        } catch {
            logger.warning(
                "cannot read the database's clock; this host's stands in until it can",
                metadata: ["error": "\(error)"]
            )
        }
        var routes: [String: PushRoute] = [:]
        for type in configuration.orderTypes {
            if let credentials = report.apnsCredentials[type.identifier] { routes[type.identifier] = type.pushRoute(credentials) }
        }
        let metrics = ServiceMetrics(pushOrderTypes: routes.keys.sorted(), certificates: report.certificates)
        let worker =
            routes.isEmpty
            ? nil
            : PushWorker(
                store: store,
                routes: routes,
                logger: logger,
                onRound: metrics.pushesFinished
            )
        if configuration.webhookAllowPrivate {
            logger.warning("webhookAllowPrivate is on: webhooks may reach loopback and private addresses (tests and development only)")
        }
        let webhookWorker = WebhookWorker(
            store: store,
            transport: CurlWebhookTransport(allowPrivate: configuration.webhookAllowPrivate),
            logger: logger,
            onOutcomes: metrics.webhooksFinished
        )
        // Last, once nothing else can fail: the tracer is the process's, and made once.
        var tracing: (any Service)?
        if let endpoint = configuration.tracingEndpoint {
            do {
                tracing = try ServiceTracing.start(endpoint: endpoint, logger: logger)
            } catch {
                await store.close()
                throw ConfigurationError("tracing to \(endpoint) cannot start: \(error)")
            }
            logger.info("tracing on: spans go to \(ServiceTracing.tracesURL(endpoint))")
        }
        return ServiceBootstrap(
            configuration: configuration,
            service: OrderService(
                store: StoreCapabilities(store),
                orderTypes: report.orderTypes,
                webServiceURL: configuration.webServiceURL,
                counters: metrics.serviceCounters,
                logLimits: configuration.deviceLogs,
                merchantKeys: configuration.merchantKeys + extraMerchantKeys,
                maxDevicesPerOrder: configuration.maxDevicesPerOrder,
                minFreeDiskBytes: configuration.minFreeDiskBytes,
                webhookAllowPrivate: configuration.webhookAllowPrivate,
                webhookHostLookup: .system
            ),
            metrics: metrics,
            store: store,
            pushWorker: worker,
            webhookWorker: webhookWorker,
            tracing: tracing,
            notes: notes
        )
    }
}
