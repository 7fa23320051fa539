import Foundation
import Logging
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPush
import WalletOrdersSQLite
import WalletOrdersStore

// Pushes per second over one HTTP/2 connection to a running local APNs (`wallet-orders apns-sandbox --quiet`)
// and, when given, to nghttpd answering 200 to the same POSTs: h2load and the libcurl transport against each (and
// against nghttpd the curl command line too, libcurl's own ceiling here), then the whole path from the SQLite outbox
// to delivered against the local APNs.
// Usage: push-benchmark APNS_PORT KEYS_DIR [PUSHES [NGHTTPD_PORT NGHTTPD_CA]]; STREAMS=N sets the concurrent
// streams (100 by default).

let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: push-benchmark APNS_PORT KEYS_DIR [PUSHES [NGHTTPD_PORT NGHTTPD_CA]]\n".utf8))
    exit(2)
}
let keys = URL(fileURLWithPath: arguments[2])
let count = arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000
let nghttpd = arguments.count > 5 ? Int(arguments[4]).map { (port: $0, caFile: arguments[5]) } : nil
// dev.env as `keys dev` writes it: one WALLET_ORDERS_NAME=value per line.
let settings = try String(contentsOf: keys.appendingPathComponent("dev.env"), encoding: .utf8)
    .split(separator: "\n").reduce(into: [String: String]()) { settings, line in
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2, !line.hasPrefix("#") { settings[String(parts[0])] = String(parts[1]) }
    }
func setting(_ name: String) -> String {
    guard let value = settings["WALLET_ORDERS_" + name] else {
        FileHandle.standardError.write(Data("\(keys.path)/dev.env has no WALLET_ORDERS_\(name)\n".utf8))
        exit(2)
    }
    return value
}
let topic = setting("ORDER_TYPE")
let key = try PrivateKey(pem: Data(contentsOf: URL(fileURLWithPath: setting("APNS_KEY"))))
let provider = try ProviderToken(key: key, keyID: setting("APNS_KEY_ID"), teamID: setting("APNS_TEAM_ID"))
let endpoint = APNSEndpoint(
    .custom(url: "https://127.0.0.1:\(port)"),
    caFile: keys.appendingPathComponent("local-apns-ca.pem").path
)
let streams = Int(ProcessInfo.processInfo.environment["STREAMS"] ?? "") ?? 100
let token = try provider.current()
let tokens = (0..<count).map { String(format: "%064x", $0) }

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The libcurl transport alone: batches of 1,000 concurrent requests on one connection; pushes/s and how many
/// were not answered 200.
func measureTransport(_ endpoint: APNSEndpoint) async -> (rate: Double, failures: Int) {
    let transport = CurlPushTransport(endpoint: endpoint, connections: 1, streamsPerConnection: streams)
    _ = await transport.send([APNSRequest(topic: topic, deviceToken: tokens[0], providerToken: token)])
    var failures = 0
    let time = await seconds {
        for start in stride(from: 0, to: count, by: 1_000) {
            let batch = tokens[start..<min(start + 1_000, count)].map {
                APNSRequest(topic: topic, deviceToken: $0, providerToken: token)
            }
            for response in await transport.send(batch) where response.status != 200 {
                if failures == 0 {
                    FileHandle.standardError.write(Data("first failure: \(response)\n".utf8))
                }
                failures += 1
            }
        }
    }
    await transport.shutdown()
    return (Double(count) / time, failures)
}

/// h2load posting the same requests (one device token) over one connection with the same streams: req/s and its
/// status-code line.
func measureH2load(port: Int) throws -> (rate: Double, statuses: String) {
    let body = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-body.json")
    try Data("{}".utf8).write(to: body)
    let h2load = Process()
    h2load.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    h2load.arguments = [
        "h2load", "-n", "\(count)", "-c", "1", "-m", "\(streams)", "-d", body.path,
        "-H", "apns-topic: \(topic)", "-H", "apns-push-type: background", "-H", "apns-priority: 5",
        "-H", "authorization: bearer \(token)", "-H", "content-type: application/json",
        "https://127.0.0.1:\(port)/3/device/\(tokens[0])",
    ]
    let pipe = Pipe()
    h2load.standardOutput = pipe
    try h2load.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    h2load.waitUntilExit()
    let rate =
        output.split(separator: "\n").first { $0.hasPrefix("finished in") }
        .flatMap { $0.split(separator: ",").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) } } ?? 0
    let statuses =
        output.split(separator: "\n").first { $0.contains("status codes:") }
        .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    return (rate, statuses)
}

/// The curl command line (libcurl itself, in C, with nothing of ours) posting the same pushes, one per device
/// token as the transport does, over one connection with the same streams (`--parallel`, which multiplexes on one
/// connection up to the server's stream limit): req/s and how many were not answered 200.
func measureCurlCommandLine(port: Int, caFile: String) async throws -> (rate: Double, failures: Int) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-curl-\(UUID().uuidString.prefix(6))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let config = folder.appendingPathComponent("urls.conf")
    try Data(tokens.map { "url = \"https://127.0.0.1:\(port)/3/device/\($0)\"\noutput = \"/dev/null\"\n" }.joined().utf8)
        .write(to: config)
    let curl = Process()
    curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    curl.arguments = [
        "curl", "--silent", "--no-progress-meter", "--http2", "--cacert", caFile, "--parallel", "--parallel-max", "\(streams)",
        "--data-binary", "{}", "-H", "apns-topic: \(topic)", "-H", "apns-push-type: background",
        "-H", "apns-priority: 5", "-H", "authorization: bearer \(token)",
        "-H", "content-type: application/json", "--write-out", "%{http_code}\\n", "--config", config.path,
    ]
    let pipe = Pipe()
    curl.standardOutput = pipe
    var output = Data()
    let time = try await seconds {
        try curl.run()
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
    }
    let statuses = String(decoding: output, as: UTF8.self).split(separator: "\n")
    return (Double(count) / time, count - statuses.filter { $0 == "200" }.count)
}

// 1. nghttpd, when given: the same requests to a server that only answers 200.
var nghttpdFigures:
    (
        h2load: (rate: Double, statuses: String), curl: (rate: Double, failures: Int),
        transport: (rate: Double, failures: Int)
    )?
if let nghttpd {
    let h2load = try measureH2load(port: nghttpd.port)
    let curl = try await measureCurlCommandLine(port: nghttpd.port, caFile: nghttpd.caFile)
    let transport = await measureTransport(APNSEndpoint(.custom(url: "https://127.0.0.1:\(nghttpd.port)"), caFile: nghttpd.caFile))
    nghttpdFigures = (h2load, curl, transport)
}

// 2. The local APNs: every request checked (headers, topic, body, provider token).
let apnsH2load = try measureH2load(port: port)
let apnsTransport = await measureTransport(endpoint)

// 3. Outbox to delivered: one order, `count` registered devices, one update, the worker running as `serve` runs it
// (rounds claimed, sent and recorded concurrently; up to 4 connections) until every push is recorded.
func measureOutbox(_ endpoint: APNSEndpoint) async throws -> (rate: Double, delivered: Int, retrying: Int) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-\(UUID().uuidString.prefix(6))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try SQLiteStore(path: folder.appendingPathComponent("orders.sqlite").path)
    _ = try await store.migrate()
    let now = Date()
    let order = OrderDocument(fields: [
        "orderTypeIdentifier": .string(topic), "orderIdentifier": .string("bench"),
        "status": .string("open"),
    ])
    func write(_ order: OrderDocument) -> OrderWrite {
        OrderWrite(
            orderTypeIdentifier: topic,
            orderIdentifier: "bench",
            authenticationToken: "t",
            document: order,
            createdAt: now,
            updatedAt: now,
            assets: nil,
            package: Data(),
            // An update owes every registered device a push, as the service's updates do.
            effects: WriteEffects(pushRegisteredDevices: true)
        )
    }
    _ = try await store.createOrder(write(order))
    try await store.importRecords(
        orders: [],
        registrations: tokens.map {
            ImportedRegistration(deviceIdentifier: $0, orderTypeIdentifier: topic, orderIdentifier: "bench", pushToken: $0, createdAt: now)
        }
    )
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    let transport = CurlPushTransport(endpoint: endpoint, streamsPerConnection: streams)
    let (recorded, recording) = AsyncStream.makeStream(of: Int.self)
    let worker = PushWorker(
        store: store,
        routes: [topic: PushRoute(transport: transport, providerToken: provider)],
        logger: logger,
        onRound: { recording.yield($0.outcomes.count) }
    )
    let running = Task { await worker.run() }
    let time = try await seconds {
        _ = try await store.updateOrder(write(order), expectedVersion: 1)
        worker.wake()
        var total = 0
        for await round in recorded {
            total += round
            if total >= count { break }
        }
    }
    running.cancel()
    await running.value
    let counts = try await store.pushCounts()
    await transport.shutdown()
    await store.close()
    return (Double(count) / time, counts[.delivered], counts[.pending])
}
var outboxNghttpd: (rate: Double, delivered: Int, retrying: Int)?
if let nghttpd {
    outboxNghttpd = try await measureOutbox(
        APNSEndpoint(
            .custom(url: "https://127.0.0.1:\(nghttpd.port)"),
            caFile: nghttpd.caFile
        )
    )
}
let outboxAPNS = try await measureOutbox(endpoint)

func rate(_ value: Double, _ unit: String) -> String { String(format: "%8.0f %@", value, unit) }

print("pushes over 1 HTTP/2 connection with \(streams) concurrent streams, \(count) pushes each")
if let nghttpd = nghttpdFigures {
    print("  nghttpd (answers 200 to every POST)")
    print("    h2load:                      \(rate(nghttpd.h2load.rate, "req/s"))     \(nghttpd.h2load.statuses)")
    print("    curl command line:           \(rate(nghttpd.curl.rate, "req/s"))     (\(nghttpd.curl.failures) not 200)")
    print("    libcurl transport:           \(rate(nghttpd.transport.rate, "pushes/s"))  (\(nghttpd.transport.failures) not 200)")
    if nghttpd.h2load.rate > 0 {
        print(String(format: "    curl command line / h2load:  %8.2f", nghttpd.curl.rate / nghttpd.h2load.rate))
        print(String(format: "    transport / h2load:          %8.2f", nghttpd.transport.rate / nghttpd.h2load.rate))
    }
    if nghttpd.curl.rate > 0 {
        print(String(format: "    transport / curl:            %8.2f", nghttpd.transport.rate / nghttpd.curl.rate))
    }
}
print("  local APNs (wallet-orders apns-sandbox: checks headers, topic, body and the provider token)")
print("    h2load:                      \(rate(apnsH2load.rate, "req/s"))     \(apnsH2load.statuses)")
print("    libcurl transport:           \(rate(apnsTransport.rate, "pushes/s"))  (\(apnsTransport.failures) not 200)")
if apnsH2load.rate > 0 {
    print(String(format: "    transport / h2load:          %8.2f", apnsTransport.rate / apnsH2load.rate))
}
if let nghttpd = nghttpdFigures, nghttpd.h2load.rate > 0, nghttpd.transport.rate > 0 {
    print(
        String(
            format: "  local APNs / nghttpd:          h2load %.2f, transport %.2f",
            apnsH2load.rate / nghttpd.h2load.rate,
            apnsTransport.rate / nghttpd.transport.rate
        )
    )
}
print("outbox -> APNs -> recorded (SQLite, one order with \(count) devices, up to 4 connections of \(streams) streams)")
if let outbox = outboxNghttpd, let nghttpd = nghttpdFigures {
    print(
        "    to nghttpd:                  \(rate(outbox.rate, "pushes/s"))  (\(outbox.delivered) delivered, "
            + "\(outbox.retrying) awaiting a retry)"
    )
    if nghttpd.h2load.rate > 0 {
        print(String(format: "    outbox / h2load (nghttpd):   %8.2f", outbox.rate / nghttpd.h2load.rate))
    }
}
print(
    "    to the local APNs:           \(rate(outboxAPNS.rate, "pushes/s"))  (\(outboxAPNS.delivered) delivered, "
        + "\(outboxAPNS.retrying) awaiting a retry)"
)
if let outbox = outboxNghttpd, outbox.rate > 0 {
    print(String(format: "    local APNs / nghttpd:        %8.2f", outboxAPNS.rate / outbox.rate))
}
