import Foundation
import Logging
import WalletOrdersService
import WalletOrdersStore

/// The service as a command runs it: the same `OrderService` the server runs, over the configured database, its clock
/// the store's (read once), with no HTTP, fetch cache or background work. What a command reads or changes goes
/// through the rules the server applies, and is stamped with the time every instance agrees on. Close it when done.
public struct OfflineService: Sendable {
    public let configuration: ServiceConfiguration
    public let service: OrderService
    /// Why order types of the configuration could not be loaded (their signing files, certificates or templates):
    /// a command that signs refuses to run with any.
    public let problems: [String]
    private let store: any OrderStore

    /// What operators do to merchants and partners, through this service.
    public var registry: MerchantRegistry { MerchantRegistry(service: service) }

    /// Opens the database `configuration` names (never creating one) and assembles the service over it. Refused when
    /// the database is missing or needs migrations.
    public static func open(_ configuration: ServiceConfiguration, logger: Logger) async throws -> OfflineService {
        var configuration = configuration
        if configuration.orderTypes.isEmpty,
            let development = try await ServiceBootstrap.developmentOrderType(configuration, create: false)
        {
            configuration.orderTypes = [development.type]
        }
        if case .sqlite(let path) = configuration.database, !FileManager.default.fileExists(atPath: path) {
            throw ConfigurationError("there is no database at \(path): pass --database or set WALLET_ORDERS_DATABASE")
        }
        let store = try await StoreFactory.open(configuration.database, logger: logger)
        do {
            let pending = try await store.pendingMigrations()
            guard pending.isEmpty else {
                throw ConfigurationError(
                    "the database needs migrations (\(pending.joined(separator: ", "))): run wallet-orders migrate first"
                )
            }
            try await store.clock.synchronize(with: store)
        } catch {
            await store.close()
            throw error
        }
        let clock = store.clock
        let report = ServiceChecks.orderTypes(configuration, clock: { clock.now() })
        let service = OrderService(
            store: StoreCapabilities(store),
            orderTypes: report.orderTypes,
            webServiceURL: configuration.webServiceURL,
            cacheCapacity: 0,
            merchantKeys: configuration.merchantKeys,
            maxDevicesPerOrder: configuration.maxDevicesPerOrder,
            minFreeDiskBytes: configuration.minFreeDiskBytes,
            webhookAllowPrivate: configuration.webhookAllowPrivate
        )
        return OfflineService(configuration: configuration, service: service, problems: report.problems, store: store)
    }

    /// Closes the database.
    public func close() async {
        await store.close()
    }
}
