import Foundation
import Hummingbird
import Logging
import WalletOrdersApplication
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

// The order fetch (`GET /v1/orders/{type}/{id}` with its AppleOrder token) through the service's own router, beside
// a bare route on that same router answering the same package bytes from memory, in one process and one run, with
// wrk. Then the fetch again with the fetch cache off (every request reads the store and assembles the package from
// its seal), for reference.
// Usage: fetch-benchmark [sqlite|postgres] [SECONDS (10)] [CONNECTIONS (64)]

let arguments = Array(CommandLine.arguments.dropFirst())
let engine = arguments.first.flatMap(StoreEngine.init(rawValue:)) ?? .sqlite
let seconds = arguments.dropFirst().first.flatMap(Int.init) ?? 10
let connections = arguments.dropFirst(2).first.flatMap(Int.init) ?? 64

let folder = try TemporaryDirectory("fetch-bench")
let (store, _) = try await TestStore.make(engine, in: folder)
let orderType = OrderType(
    identifier: DevelopmentKeys.orderType,
    builder: PackageBuilder(identity: DevelopmentKeys.shared.identity),
    template: try OrderTemplate(directory: SampleOrder.templateFolder)
)

/// The service's router for a service with a fetch cache of `cacheCapacity` bytes, and the bare route beside it.
func router(cacheCapacity: Int, bare: ByteBuffer?) -> Router<ServiceRequestContext> {
    let service = OrderService(
        store: store,
        orderTypes: [orderType],
        webServiceURL: "https://orders.example.com",
        cacheCapacity: cacheCapacity
    )
    let router = ServiceRouter.make(service: service, metrics: ServiceMetrics())
    if let bare {
        // Two path parameters like the fetch, the same content type, the bytes from memory: what the router,
        // the middleware and NIO cost with no service behind them.
        router.get("bare/:orderTypeIdentifier/:orderIdentifier") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = PackageBuilder.contentType
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bare))
        }
    }
    return router
}

/// Runs `router` on a free loopback port until `body` returns.
func serving<T>(_ router: Router<ServiceRequestContext>, _ body: (Int) async throws -> T) async throws -> T {
    let (ports, port) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "fetch-benchmark")
    logger.logLevel = .error
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { port.yield($0.localAddress?.port ?? 0) },
        logger: logger
    )
    let task = Task { try await app.runService() }
    var iterator = ports.makeAsyncIterator()
    guard let bound = await iterator.next() else { fatalError("the server did not start") }
    let result = try await body(bound)
    task.cancel()
    _ = await task.result
    return result
}

/// wrk's requests per second and p99 latency.
func wrk(_ url: String, token: String? = nil) throws -> (rate: Double, p99: String, errors: String?) {
    var wrkArguments = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"]
    if let token { wrkArguments += ["-H", "Authorization: AppleOrder \(token)"] }
    let result = try Command.runBlocking("wrk", wrkArguments + [url])
    guard result.status == 0 else { fatalError("wrk failed: \(result.error)") }
    let lines = result.output.split(separator: "\n")
    let rate = lines.first { $0.hasPrefix("Requests/sec:") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    let p99 =
        lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("99%") }?
        .split(separator: " ").last.map(String.init) ?? "?"
    let errors = lines.first { $0.contains("Non-2xx") || $0.contains("Socket errors") }.map(String.init)
    return (rate, p99, errors)
}

// One order, created through a service so its package is the one the service signed; the bare route answers the
// bytes a fetch answers (the store keeps only the package's seal).
var body = SampleOrder.json().objectValue!
for key in ["createdAt", "updatedAt", "merchant"] { body.removeValue(forKey: key) }
let writer = OrderService(
    store: store,
    orderTypes: [orderType],
    webServiceURL: "https://orders.example.com",
    cacheCapacity: 0
)
let order = try await writer.create(OrderInput(fields: body)).order
let package = Data(
    try await writer.package(type: order.orderTypeIdentifier, id: order.orderIdentifier)
        .package.readableBytesView
)
let path = "\(order.orderTypeIdentifier)/\(order.orderIdentifier)"

let load =
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ") ?? "unknown"
print(
    "wrk -t2 -c\(connections) -d\(seconds)s on loopback, \(engine), package \(package.count) bytes; "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by client and server, load average \(load)"
)
let (fetch, bare) = try await serving(
    router(
        cacheCapacity: OrderService.defaultCacheCapacity,
        bare: ByteBuffer(data: package)
    )
) { port in
    let base = "http://127.0.0.1:\(port)"
    // Warm: the first fetch fills the cache.
    _ = try wrk("\(base)/v1/orders/\(path)", token: order.authenticationToken)
    let fetch = try wrk("\(base)/v1/orders/\(path)", token: order.authenticationToken)
    let bare = try wrk("\(base)/bare/\(path)")
    return (fetch, bare)
}
let uncached = try await serving(router(cacheCapacity: 0, bare: nil)) { port in
    try wrk("http://127.0.0.1:\(port)/v1/orders/\(path)", token: order.authenticationToken)
}
func line(_ name: String, _ figure: (rate: Double, p99: String, errors: String?)) {
    print(
        String(
            format: "  %-44@ %10.0f req/s  p99 %@%@",
            name as NSString,
            figure.rate,
            figure.p99,
            figure.errors.map { "  (\($0))" } ?? ""
        )
    )
}
line("order fetch, fetch cache on", fetch)
line("bare route, same router, same bytes", bare)
line("order fetch, fetch cache off (reads the store)", uncached)
print(
    String(
        format: "  fetch / bare route: %.2f; fetch cache on / off: %.2f",
        fetch.rate / bare.rate,
        fetch.rate / uncached.rate
    )
)
await store.close()
