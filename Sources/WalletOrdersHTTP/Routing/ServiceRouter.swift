import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WalletOrdersModel
import WalletOrdersSchemas
import WalletOrdersService

/// The router of every endpoint the service answers: the device API, the merchant API, the admin page, the health
/// check, the metrics and the documents, behind `ServiceMiddleware`.
public enum ServiceRouter {
    /// The router over `service`. The merchant API accepts the keys `service.merchants` knows (stored ones, and the
    /// configuration's for the default merchant); `/admin` and `/metrics` are behind `adminKey` when one is set
    /// (`/admin` is off without one); the operator's API behind `operatorKey` (off without one). Every request needs
    /// one `Host` header that `hosts` accepts. `traced` starts a span for each request (the tracer the process
    /// bootstrapped sends it). `routes` adds the routes of other modules (the playground), given the admin key's
    /// guard (nil without an admin key) to put theirs behind; they are behind the same middleware.
    public static func make(
        service: OrderService,
        metrics: any HTTPMetrics,
        adminKey: String? = nil,
        operatorKey: String? = nil,
        limits: ClientLimits = ClientLimits(),
        hosts: HostPolicy = .any,
        traced: Bool = false,
        routes: (Router<ServiceRequestContext>, AdminKeyMiddleware?) -> Void = { _, _ in }
    ) -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self, options: .autoGenerateHeadEndpoints)
        let guards = ClientGuards(limits, metrics: metrics)
        let adminGate = adminKey.flatMap { $0.isEmpty ? nil : AdminKeyMiddleware(adminKey: $0, operatorKey: operatorKey, guards: guards) }
        router.add(
            middleware: ServiceMiddleware(
                trustedHeader: limits.trustedProxyHeader.flatMap { HTTPField.Name($0) },
                hosts: hosts,
                metrics: metrics
            )
        )
        // Middleware applies to the routes added after it. A link's path is its secret, so link downloads come
        // before the tracing middleware, which records each request's path, and it leaves untraced any path that
        // nearly names a link (which reaches no link route).
        LinkDownloadRoute(service: service, guards: guards).add(to: router)
        if traced {
            // No header is recorded (they carry the keys and tokens), nor any body.
            router.add(middleware: SecretPathTracingMiddleware<ServiceRequestContext>())
        }
        DeviceAPI(service: service, guards: guards).add(to: router)
        OperatorAPI(service: service, guards: guards, operatorKey: operatorKey).add(to: router)
        MerchantAPI(service: service, guards: guards).add(to: router)
        ShopHookRoute(service: service, guards: guards).add(to: router)
        TrackingHookRoute(service: service, guards: guards).add(to: router)
        AdminConsole(service: service, gate: adminGate, operatorKey: operatorKey).add(to: router)
        OperationsRoutes(service: service, metrics: metrics, guards: guards, adminGate: adminGate).add(to: router)
        routes(router, adminGate)
        return router
    }
}
