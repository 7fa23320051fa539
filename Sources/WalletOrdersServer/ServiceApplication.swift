import Foundation
import Hummingbird
import Logging
import WalletOrdersModel
import WalletOrdersPush
import WalletOrdersStore

/// The HTTP application: the device API, the merchant API and a health check over one `OrderService`.
public enum ServiceApplication {
    /// The router with every endpoint.
    public static func router(service: OrderService, merchantKeys: [String], adminKey: String? = nil)
        -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics))
        router.add(middleware: ErrorMiddleware())
        DeviceAPI(service: service).add(to: router)
        MerchantAPI(service: service, merchantKeys: merchantKeys).add(to: router)
        router.get("healthz") { _, _ -> Response in
            let reachable = await service.store.isReachable()
            return JSONResponse.make(reachable ? .ok : .serviceUnavailable,
                                     .object(["database": .string(reachable ? "ok" : "unreachable")]))
        }
        AdminPage(store: service.store, adminKey: adminKey).add(to: router)
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
        let metrics = router.group("metrics")
        if let adminKey { metrics.add(middleware: BearerKeyMiddleware(keys: [adminKey])) }
        metrics.get { _, _ -> Response in
            let text = try await service.metrics.exposition(store: service.store)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return router
    }

    /// The application listening where `configuration` says; `onServerRunning` receives the bound port.
    /// With a `pushWorker`, it runs beside the server and stops with it.
    public static func make(
        service: OrderService,
        configuration: ServiceConfiguration,
        logger: Logger,
        pushWorker: PushWorker? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<ServiceRequestContext>> {
        Application(
            router: router(service: service, merchantKeys: configuration.merchantKeys, adminKey: configuration.adminKey),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "wallet-orders"),
            services: pushWorker.map { [PushWorkerService(worker: $0)] } ?? [],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }
}

/// Turns a configuration into a ready service: database migrated, order types loaded and checked, and, when
/// nothing is configured, development keys and a merchant key made under the database's folder.
public struct ServiceBootstrap: Sendable {
    public let configuration: ServiceConfiguration
    public let service: OrderService
    /// The push worker, when any order type has APNs credentials.
    public let pushWorker: PushWorker?
    /// Lines for the person starting the service (what was set up for development, and how to use it).
    public let notes: [String]

    public init(configuration: ServiceConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = Date.init) throws {
        var configuration = configuration
        var notes: [String] = []
        let dataFolder = URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent()
        if configuration.orderTypes.isEmpty, let development = try Self.developmentOrderType(configuration, create: true) {
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
        let report = ServiceChecks.run(configuration, now: now(), clock: now)
        let problems = report.problems
        guard problems.isEmpty else {
            throw ConfigurationError(problems.count == 1 ? problems[0] : "\n  " + problems.joined(separator: "\n  "))
        }
        for finding in report.findings where finding.level == .warning { logger.warning("\(finding.message)") }
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: configuration.databasePath)
            let applied = try store.migrate()
            if !applied.isEmpty { logger.info("applied migrations", metadata: ["migrations": "\(applied.joined(separator: ", "))"]) }
        } catch {
            throw ConfigurationError("the database \(configuration.databasePath) cannot be opened and migrated: \(error)")
        }
        var routes: [String: PushRoute] = [:]
        for type in configuration.orderTypes {
            if let credentials = report.apnsCredentials[type.identifier] { routes[type.identifier] = type.pushRoute(credentials) }
        }
        let metrics = ServiceMetrics()
        let worker = routes.isEmpty ? nil : PushWorker(store: store, routes: routes, logger: logger, now: now,
                                                       onOutcomes: metrics.pushesFinished)
        self.configuration = configuration
        self.service = OrderService(store: store, orderTypes: report.orderTypes, webServiceURL: configuration.webServiceURL,
                                    now: now, pushesQueued: { worker?.wake() }, metrics: metrics)
        self.pushWorker = worker
        self.notes = notes
    }

    /// With no order type configured: the development order type from `dev-keys/` beside the database, made
    /// there first when `create` is set (nil when it is not and there are none), and what to tell the user.
    public static func developmentOrderType(_ configuration: ServiceConfiguration, create: Bool) throws
        -> (type: OrderTypeConfiguration, notes: [String])? {
        var notes: [String] = []
        let folder = URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent()
            .appendingPathComponent("dev-keys")
        let environmentFile = folder.appendingPathComponent("dev.env").path
        var settings: [String: String]
        if FileManager.default.fileExists(atPath: environmentFile) {
            settings = DevelopmentKeyFiles.readEnvironmentFile(environmentFile)
        } else if create {
            settings = try DevelopmentKeyFiles.write(
                to: folder, orderType: DevelopmentKeyFiles.defaultOrderType,
                team: DevelopmentKeyFiles.defaultTeam, replace: false).environment
            notes.append("No order type configured: made development keys in \(folder.path) (not trusted by real devices).")
        } else {
            return nil
        }
        guard let identifier = settings["WALLET_ORDERS_ORDER_TYPE"], let key = settings["WALLET_ORDERS_SIGNING_KEY"],
              let wwdr = settings["WALLET_ORDERS_WWDR_CERT"] else {
            throw ConfigurationError("\(environmentFile) is incomplete: remove \(folder.path) to make new development keys")
        }
        var type = OrderTypeConfiguration(identifier: identifier, signingKey: key, wwdrCertificate: wwdr)
        type.signingCertificate = settings["WALLET_ORDERS_SIGNING_CERT"]
        type.teamIdentifier = settings["WALLET_ORDERS_TEAM_ID"]
        let sample = URL(fileURLWithPath: "OrderTemplates/sample")
        if FileManager.default.fileExists(atPath: sample.path) { type.template = sample.path }
        if let apns = configuration.developmentAPNS {
            type.apnsKey = settings["WALLET_ORDERS_APNS_KEY"]
            type.apnsKeyID = settings["WALLET_ORDERS_APNS_KEY_ID"]
            type.apnsTeamID = settings["WALLET_ORDERS_APNS_TEAM_ID"]
            type.apnsEnvironment = apns.url
            type.apnsCA = apns.caFile
            notes.append("Pushes go to the local APNs at \(apns.url) with the development APNs key.")
        }
        return (type, notes)
    }
}
