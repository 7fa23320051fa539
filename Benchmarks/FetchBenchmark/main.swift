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

// The order fetch (`GET /v1/orders/{type}/{id}` with its AppleOrder token) through the service's own router and server
// (`serve`'s middleware, connection handlers and default limits), in one process and one run, with wrk, beside two
// references answering the same package bytes from memory:
// - a minimal Hummingbird app: one route, Hummingbird's own request context, no middleware, the default server. The
//   ceiling of the framework, and the reference the goal is stated against;
// - a bare route on the service's router and server: what the middleware and connection handlers cost, with no
//   service behind them.
// Then the fetch again with the fetch cache off (every request reads the store and assembles the package from its
// seal), for reference.
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
        store: StoreCapabilities(store),
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

/// The minimal Hummingbird app: one route with two path parameters like the fetch, answering `bytes` with the
/// package's content type.
func minimalApp(_ bytes: ByteBuffer, logger: Logger, ports: AsyncStream<Int>.Continuation) -> some ApplicationProtocol {
    let router = Router()
    router.get("bare/:orderTypeIdentifier/:orderIdentifier") { _, _ -> Response in
        var headers = HTTPFields()
        headers[.contentType] = PackageBuilder.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { ports.yield($0.localAddress?.port ?? 0) },
        logger: logger
    )
}

func quiet() -> Logger {
    var logger = Logger(label: "fetch-benchmark")
    logger.logLevel = .error
    return logger
}

/// Runs `router` as `serve` does (its server, connection handlers and default limits) on a free loopback port until
/// `body` returns.
func serving<T>(_ router: Router<ServiceRequestContext>, _ body: (Int) async throws -> T) async throws -> T {
    let (ports, port) = AsyncStream.makeStream(of: Int.self)
    let app = ServiceServer.make(
        router: router,
        host: "127.0.0.1",
        port: 0,
        limits: ClientLimits(),
        metrics: ServiceMetrics(),
        logger: quiet(),
        onServerRunning: { port.yield($0) }
    )
    return try await running(app, ports, body)
}

/// Runs `app` until `body`, given the port `ports` names first, returns.
func running<T>(
    _ app: some ApplicationProtocol,
    _ ports: AsyncStream<Int>,
    _ body: (Int) async throws -> T
) async throws -> T {
    let task = Task { try await app.runService() }
    var iterator = ports.makeAsyncIterator()
    guard let bound = await iterator.next() else { fatalError("the server did not start") }
    let result = try await body(bound)
    task.cancel()
    _ = await task.result
    return result
}

/// What one wrk run measured: requests per second, the p99 latency, wrk's errors if any, and this process's CPU time
/// per request (the server's alone: wrk is another process), which holds better than the rate on a busy machine.
struct Figure {
    let rate: Double
    let p99: String
    let errors: String?
    let cpuMicroseconds: Double
}

/// This process's user and system CPU time so far, in microseconds.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
    return user + Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
}

func wrk(_ url: String, token: String? = nil) throws -> Figure {
    var wrkArguments = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"]
    if let token { wrkArguments += ["-H", "Authorization: AppleOrder \(token)"] }
    let before = cpuTime()
    let result = try Command.runBlocking("wrk", wrkArguments + [url])
    let cpu = cpuTime() - before
    guard result.status == 0 else { fatalError("wrk failed: \(result.error)") }
    let lines = result.output.split(separator: "\n")
    let rate = lines.first { $0.hasPrefix("Requests/sec:") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    let requests = lines.first { $0.contains(" requests in ") }.flatMap { Double($0.split(separator: " ").first ?? "") } ?? 0
    let p99 =
        lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("99%") }?
        .split(separator: " ").last.map(String.init) ?? "?"
    let errors = lines.first { $0.contains("Non-2xx") || $0.contains("Socket errors") }.map(String.init)
    return Figure(rate: rate, p99: p99, errors: errors, cpuMicroseconds: requests > 0 ? cpu / requests : 0)
}

// One order, created through a service so its package is the one the service signed; the bare route answers the
// bytes a fetch answers (the store keeps only the package's seal).
var body = SampleOrder.json().objectValue!
for key in ["createdAt", "updatedAt", "merchant"] { body.removeValue(forKey: key) }
let writer = OrderService(
    store: StoreCapabilities(store),
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
let (minimalPorts, minimalPort) = AsyncStream.makeStream(of: Int.self)
let minimal = try await running(
    minimalApp(ByteBuffer(data: package), logger: quiet(), ports: minimalPort),
    minimalPorts
) { port in
    let url = "http://127.0.0.1:\(port)/bare/\(path)"
    _ = try wrk(url)
    return try wrk(url)
}
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
func line(_ name: String, _ figure: Figure) {
    print(
        String(
            format: "  %-48@ %8.0f req/s  p99 %8@  server CPU %6.1f µs/request%@",
            name as NSString,
            figure.rate,
            figure.p99 as NSString,
            figure.cpuMicroseconds,
            figure.errors.map { "  (\($0))" } ?? ""
        )
    )
}
line("minimal Hummingbird app, same bytes", minimal)
line("order fetch, fetch cache on", fetch)
line("bare route on the service's router and server", bare)
line("order fetch, fetch cache off (reads the store)", uncached)
print(
    String(
        format: "  fetch / minimal app: %.2f (CPU per request %.2f×); bare route on our router / minimal app: %.2f "
            + "(CPU %.2f×); fetch / bare route: %.2f; fetch cache on / off: %.2f",
        fetch.rate / minimal.rate,
        fetch.cpuMicroseconds / minimal.cpuMicroseconds,
        bare.rate / minimal.rate,
        bare.cpuMicroseconds / minimal.cpuMicroseconds,
        fetch.rate / bare.rate,
        fetch.rate / uncached.rate
    )
)
await store.close()
