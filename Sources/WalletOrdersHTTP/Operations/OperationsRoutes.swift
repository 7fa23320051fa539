import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WalletOrdersModel
import WalletOrdersSchemas
import WalletOrdersService

/// What operators' tools and merchants' editors read: `/healthz`, `/metrics`, the order JSON Schema and the OpenAPI
/// document.
struct OperationsRoutes: Sendable {
    let service: OrderService
    let metrics: any HTTPMetrics
    let guards: ClientGuards
    /// The admin key's guard, in front of `/metrics` when there is an admin key.
    let adminGate: AdminKeyMiddleware?

    func add(to router: Router<ServiceRequestContext>) {
        router.get("healthz") { _, _ -> Response in
            let health = await service.health()
            var body: [String: JSONValue] = ["database": .string(health.databaseReachable ? "ok" : "unreachable")]
            // The disk holding an SQLite database; PostgreSQL's server watches its own.
            if let disk = health.disk {
                body["disk"] = .string(health.diskShortage ?? "ok")
                body["diskFreeBytes"] = .int(disk.freeBytes)
            }
            return JSONResponse.make(health.isHealthy ? .ok : .serviceUnavailable, .object(body))
        }
        router.get(RouterPath(OrderSchema.path)) { _, _ -> Response in
            Self.document(OrderSchema.data, type: OrderSchema.contentType)
        }
        router.get("openapi.json") { _, _ -> Response in
            guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
                let document = try? Data(contentsOf: url)
            else {
                throw APIError(.notFound, "the OpenAPI document is not installed beside the binary")
            }
            return Self.document(document, type: "application/json")
        }
        // Prometheus text format; behind the admin key when one is configured.
        let metricsGroup = router.group("metrics")
        if let adminGate { metricsGroup.add(middleware: adminGate) }
        metricsGroup.get { _, _ -> Response in
            let scrape = MetricsScrape(
                stored: await readStored(),
                logLimits: service.logLimits,
                rateLimits: guards.named.map { ($0.0, $0.1.limit, $0.1.trackedClients) }
            )
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition(scrape)))
            )
        }
    }

    /// What the database holds that `/metrics` shows; nil when it cannot be reached, so that the scrape still answers
    /// and says so (`wallet_orders_database_reachable 0`) rather than failing whole.
    private func readStored() async -> MetricsScrape.Stored? {
        guard await service.isHealthy() else { return nil }
        do {
            return MetricsScrape.Stored(
                pushes: try await service.pushCounts(),
                logBytes: try await service.logBytes(),
                merchants: try await service.merchantsHolding()
            )
        } catch {
            return nil
        }
    }

    private static func document(_ data: Data, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
