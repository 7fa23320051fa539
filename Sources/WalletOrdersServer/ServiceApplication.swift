import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ServiceLifecycle
import WalletOrdersModel
import WalletOrdersPostgres
import WalletOrdersPush
import WalletOrdersSchemas
import WalletOrdersSQLite
import WalletOrdersService
import WalletOrdersStore

/// The HTTP application: the device API, the merchant API and a health check over one `OrderService`.
public enum ServiceApplication {
    /// The router with every endpoint.
    /// With `playground`, `/playground` is on, and the merchant API also accepts the playground page's key.
    public static func router(service: OrderService, metrics: ServiceMetrics, merchantKeys: [String],
                              adminKey: String? = nil, limits: ClientLimits = ClientLimits(),
                              playground: Playground? = nil) -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self, options: .autoGenerateHeadEndpoints)
        let guards = ClientGuards(limits, metrics: metrics)
        router.add(middleware: ClientAddressMiddleware(trustedHeader: limits.trustedProxyHeader.flatMap { HTTPField.Name($0) }))
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        DeviceAPI(service: service, guards: guards).add(to: router)
        MerchantAPI(service: service, merchantKeys: merchantKeys + (playground.map { [$0.key] } ?? []),
                    guards: guards).add(to: router)
        router.get("healthz") { _, _ -> Response in
            let reachable = await service.isHealthy()
            return JSONResponse.make(reachable ? .ok : .serviceUnavailable,
                                     .object(["database": .string(reachable ? "ok" : "unreachable")]))
        }
        AdminPage(service: service, adminKey: adminKey).add(to: router)
        PlaygroundPage(playground: playground, webServiceURL: service.webServiceURL).add(to: router)
        router.get(RouterPath(OrderSchema.path)) { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = OrderSchema.contentType
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: OrderSchema.data)))
        }
        router.get("openapi.json") { _, _ -> Response in
            guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
                  let document = try? Data(contentsOf: url) else {
                throw APIError(.notFound, "the OpenAPI document is not installed beside the binary")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        // Prometheus text format; behind the admin key when one is configured.
        let metricsGroup = router.group("metrics")
        if let adminKey { metricsGroup.add(middleware: BearerKeyMiddleware(keys: [adminKey])) }
        metricsGroup.get { _, _ -> Response in
            let text = metrics.exposition(pushes: try await service.pushCounts(), guards: guards,
                                          logBytes: try await service.logBytes(), logLimits: service.logLimits)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return router
    }

    /// The application listening where `configuration` says; `onServerRunning` receives the bound port.
    /// `services` run beside the server and stop after it (the push worker, the store's upkeep).
    public static func make(
        service: OrderService,
        metrics: ServiceMetrics,
        configuration: ServiceConfiguration,
        logger: Logger,
        services: [any Service] = [],
        playground: Playground? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<ServiceRequestContext>> {
        let limits = configuration.clientLimits
        // Hummingbird closes connections that send nothing for the idle timeout; the slow-client handler closes
        // those that send a request too slowly, and the connection cap keeps the rest waiting in the backlog.
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [SlowClientHandler(headerTimeout: limits.headerTimeout.map(TimeAmount.init),
                                                          bodyTimeout: limits.bodyTimeout.map(TimeAmount.init),
                                                          onClose: { metrics.slowClientClosed($0) })],
            idleTimeout: limits.idleTimeout.map(TimeAmount.init))
        return Application(
            router: router(service: service, metrics: metrics, merchantKeys: configuration.merchantKeys,
                           adminKey: configuration.adminKey, limits: limits, playground: playground),
            server: .http1(configuration: http1),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "wallet-orders",
                                 availableConnectionsDelegate: limits.maxConnections.map {
                                     MaximumAvailableConnections($0, logger: logger)
                                 }),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                playground?.listening(host: configuration.host, port: port)
                await onServerRunning(port)
            },
            logger: logger)
    }
}

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
    /// Lines for the person starting the service (what was set up for development, and how to use it).
    public let notes: [String]

    /// What runs beside the HTTP server: the store's upkeep (listed first, so it stops last and closes the
    /// store) and the push worker.
    public var services: [any Service] {
        [StoreUpkeepService(store: store)] + (pushWorker.map { [PushWorkerService(worker: $0)] } ?? [])
    }

    public static func make(configuration: ServiceConfiguration, logger: Logger,
                            now: @escaping @Sendable () -> Date = Date.init) async throws -> ServiceBootstrap {
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
               existing.count >= 16 {
                configuration.merchantKeys = [existing]
                notes.append("Merchant API key: the development key in \(file).")
            } else {
                let key = Random.token()
                try FileManager.default.createDirectory(at: dataFolder, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: file, contents: Data((key + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw ConfigurationError("cannot write the development merchant key to \(file)")
                }
                configuration.merchantKeys = [key]
                notes.append("No merchant key configured: made a development key, stored in \(file):")
                notes.append("    \(key)")
            }
        }
        let report = await ServiceChecks.run(configuration, now: now(), clock: now, logger: logger)
        let problems = report.problems
        guard problems.isEmpty else {
            throw ConfigurationError(problems.count == 1 ? problems[0] : "\n  " + problems.joined(separator: "\n  "))
        }
        for finding in report.findings where finding.level == .warning { logger.warning("\(finding.message)") }
        let store = try await StoreFactory.open(configuration.database, logger: logger)
        do {
            let applied = try await store.migrate()
            if !applied.isEmpty { logger.info("applied migrations", metadata: ["migrations": "\(applied.joined(separator: ", "))"]) }
        } catch {
            await store.close()
            throw ConfigurationError("the database \(configuration.database) cannot be migrated: \(error)")
        }
        var routes: [String: PushRoute] = [:]
        for type in configuration.orderTypes {
            if let credentials = report.apnsCredentials[type.identifier] { routes[type.identifier] = type.pushRoute(credentials) }
        }
        let metrics = ServiceMetrics()
        let worker = routes.isEmpty ? nil : PushWorker(store: store, routes: routes, logger: logger, now: now,
                                                       onOutcomes: metrics.pushesFinished)
        return ServiceBootstrap(
            configuration: configuration,
            service: OrderService(store: store, orderTypes: report.orderTypes, webServiceURL: configuration.webServiceURL,
                                  now: now, counters: metrics.serviceCounters, logLimits: configuration.deviceLogs),
            metrics: metrics, store: store, pushWorker: worker, notes: notes)
    }

    /// Where the development keys live: `dev-keys/` in the data folder.
    public static func developmentKeysFolder(_ configuration: ServiceConfiguration) -> URL {
        configuration.dataFolder.appendingPathComponent("dev-keys")
    }

    /// Makes the development keys when there are none yet; answers what to tell the user (nothing when they exist).
    public static func makeDevelopmentKeys(_ configuration: ServiceConfiguration) throws -> [String] {
        let folder = developmentKeysFolder(configuration)
        guard !FileManager.default.fileExists(atPath: folder.appendingPathComponent("dev.env").path) else { return [] }
        _ = try DevelopmentKeyFiles.write(
            to: folder, orderType: DevelopmentKeyFiles.defaultOrderType,
            team: DevelopmentKeyFiles.defaultTeam, replace: false)
        return ["No order type configured: made development keys in \(folder.path) (not trusted by real devices)."]
    }

    /// With no order type configured: the development order type from `dev-keys/` in the data folder, made
    /// there first when `create` is set (nil when it is not and there are none), and what to tell the user.
    public static func developmentOrderType(_ configuration: ServiceConfiguration, create: Bool) async throws
        -> (type: OrderTypeConfiguration, notes: [String])? {
        var notes: [String] = []
        let folder = developmentKeysFolder(configuration)
        let environmentFile = folder.appendingPathComponent("dev.env").path
        if !FileManager.default.fileExists(atPath: environmentFile) {
            guard create else { return nil }
            notes += try makeDevelopmentKeys(configuration)
        }
        guard var type = try await ServiceConfiguration.orderType(environmentFile: environmentFile) else {
            throw ConfigurationError("\(environmentFile) is incomplete: remove \(folder.path) to make new development keys")
        }
        let sample = URL(fileURLWithPath: "OrderTemplates/sample")
        if type.template == nil, FileManager.default.fileExists(atPath: sample.path) { type.template = sample.path }
        if let apns = configuration.developmentAPNS {
            type.apnsEnvironment = .custom(url: apns.url)
            type.apnsCA = apns.caFile
            notes.append("Pushes go to the local APNs at \(apns.url) with the development APNs key.")
        } else {
            // Without a local APNs to push to, the development pushes wait in the outbox.
            type.apnsKey = nil
            type.apnsCertificate = nil
        }
        return (type, notes)
    }
}

/// Opens the store the configuration names.
public enum StoreFactory {
    /// The SQLite or PostgreSQL store at `location`, not yet migrated.
    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> any OrderStore {
        switch location {
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw ConfigurationError("the database \(path) cannot be opened: \(error)")
            }
        case .postgres(let url):
            return await PostgresStore(url: url, logger: logger)
        }
    }
}

/// Keeps the store's query planner statistics current while the service runs, and closes the store when the
/// service stops (it is the first service, so it stops last).
struct StoreUpkeepService: Service {
    let store: any OrderStore
    static let interval: Duration = .seconds(3_600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                if Task.isCancelled { break }
                try? await store.optimize()
            }
        }
        await store.close()
    }
}
