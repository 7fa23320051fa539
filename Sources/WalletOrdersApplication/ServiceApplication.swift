import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import WalletOrdersHTTP
import WalletOrdersService

/// The running service: the HTTP layer over one `OrderService`, listening where the configuration says.
public enum ServiceApplication {
    /// The application for `service` as `configuration` describes it; `onServerRunning` receives the bound port.
    /// `services` run beside the server and stop after it (the push worker, the store's upkeep). `routes` adds
    /// the routes of other modules (the playground) to the router, given the admin key's guard (nil without an
    /// admin key). The merchant API accepts the keys `service.merchants` knows.
    public static func make(
        service: OrderService,
        metrics: ServiceMetrics,
        configuration: ServiceConfiguration,
        logger: Logger,
        services: [any Service] = [],
        routes: (Router<ServiceRequestContext>, AdminKeyMiddleware?) -> Void = { _, _ in },
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<ServiceRequestContext>> {
        let router = ServiceRouter.make(
            service: service,
            metrics: metrics,
            adminKey: configuration.adminKey,
            operatorKey: configuration.operatorKey,
            limits: configuration.clientLimits,
            hosts: configuration.hosts,
            traced: configuration.tracingEndpoint != nil,
            routes: routes
        )
        return ServiceServer.make(
            router: router,
            host: configuration.host,
            port: configuration.port,
            limits: configuration.clientLimits,
            metrics: metrics,
            services: services,
            logger: logger,
            onServerRunning: onServerRunning
        )
    }
}
