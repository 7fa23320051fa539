import Foundation
import Logging
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPush
import WalletOrdersSQLite
import WalletOrdersServer
import WalletOrdersStore

// Pushes per second to a running local APNs (`wallet-orders apns-sandbox --quiet`) over one HTTP/2 connection:
// the libcurl transport alone, then the whole path from the SQLite outbox to delivered, then h2load posting the
// same requests to the same server. Usage: push-benchmark PORT KEYS_DIR [PUSHES]; STREAMS=N sets the concurrent
// streams (100 by default).

let arguments = CommandLine.arguments
guard arguments.count >= 3, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: push-benchmark PORT KEYS_DIR [PUSHES]\n".utf8))
    exit(2)
}
let keys = URL(fileURLWithPath: arguments[2])
let count = arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000
let settings = try await ServiceConfiguration.orderType(environmentFile: keys.appendingPathComponent("dev.env").path)!
let topic = settings.identifier
let key = try PrivateKey(pem: Data(contentsOf: URL(fileURLWithPath: settings.apnsKey!)))
let provider = try ProviderToken(key: key, keyID: settings.apnsKeyID!, teamID: settings.apnsTeamID!)
let endpoint = APNSEndpoint(.custom(url: "https://127.0.0.1:\(port)"),
                            caFile: keys.appendingPathComponent("local-apns-ca.pem").path)
let streams = Int(ProcessInfo.processInfo.environment["STREAMS"] ?? "") ?? 100

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// 1. The transport alone: batches of 1,000 concurrent requests on one connection.
let transport = CurlPushTransport(endpoint: endpoint, connections: 1, streamsPerConnection: streams)
let token = try provider.current()
let tokens = (0..<count).map { String(format: "%064x", $0) }
_ = await transport.send([PushRequest(topic: topic, deviceToken: tokens[0], providerToken: token)])
var failures = 0
let transportTime = await seconds {
    for start in stride(from: 0, to: count, by: 1_000) {
        let batch = tokens[start..<min(start + 1_000, count)].map { PushRequest(topic: topic, deviceToken: $0, providerToken: token) }
        let responses = await transport.send(batch)
        for response in responses where response.status != 200 {
            if failures == 0 { FileHandle.standardError.write(Data("first failure: \(response.status) \(response.reason ?? "")\n".utf8)) }
            failures += 1
        }
    }
}

// 2. Outbox to delivered: one order, `count` registered devices, one update, the worker until done.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-\(UUID().uuidString.prefix(6))")
let store = try SQLiteStore(path: folder.appendingPathComponent("orders.sqlite").path)
_ = try await store.migrate()
let now = Date()
let order = OrderDocument(fields: ["orderTypeIdentifier": .string(topic), "orderIdentifier": .string("bench"),
                                   "status": .string("open")])
func write(_ order: OrderDocument) -> OrderWrite {
    OrderWrite(orderTypeIdentifier: topic, orderIdentifier: "bench", authenticationToken: "t", document: order,
               createdAt: now, updatedAt: now, assets: nil, package: Data())
}
_ = try await store.createOrder(write(order))
try await store.importRecords(orders: [], registrations: tokens.map {
    ImportedRegistration(deviceIdentifier: $0, orderTypeIdentifier: topic, orderIdentifier: "bench", pushToken: $0, createdAt: now)
})
_ = try await store.updateOrder(write(order), expectedVersion: 1, now: now)
var logger = Logger(label: "bench")
logger.logLevel = .critical
let worker = PushWorker(store: store, routes: [topic: PushRoute(transport: transport, providerToken: provider)], logger: logger)
let workerTime = try await seconds {
    while try await worker.sendDue() > 0 {}
}
let counts = try await store.pushCounts()
let delivered = counts[.delivered], retrying = counts[.pending]
transport.shutdown()
await store.close()
try? FileManager.default.removeItem(at: folder)

// 3. h2load: the same requests, one connection, the same number of concurrent streams.
let body = folder.deletingLastPathComponent().appendingPathComponent("push-bench-body.json")
try Data("{}".utf8).write(to: body)
let h2load = Process()
h2load.executableURL = URL(fileURLWithPath: "/usr/bin/env")
h2load.arguments = ["h2load", "-n", "\(count)", "-c", "1", "-m", "\(streams)", "-d", body.path,
                    "-H", "apns-topic: \(topic)", "-H", "apns-push-type: background", "-H", "apns-priority: 5",
                    "-H", "authorization: bearer \(token)", "-H", "content-type: application/json",
                    "https://127.0.0.1:\(port)/3/device/\(tokens[0])"]
let pipe = Pipe()
h2load.standardOutput = pipe
try h2load.run()
let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
h2load.waitUntilExit()
let h2loadRate = output.split(separator: "\n").first { $0.hasPrefix("finished in") }
    .flatMap { line in line.split(separator: ",").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) } } ?? 0
let h2loadStatus = output.split(separator: "\n").first { $0.contains("status codes:") }.map(String.init) ?? ""

print("pushes to the local APNs, 1 connection, \(streams) concurrent streams, \(count) pushes each")
print(String(format: "  libcurl transport (wallet-orders):        %8.0f pushes/s  (%d not 200)", Double(count) / transportTime, failures))
print(String(format: "  outbox -> APNs -> delivered (SQLite):     %8.0f pushes/s  (%d delivered, %d awaiting a retry)", Double(count) / workerTime, delivered, retrying))
print(String(format: "  h2load, same requests:                    %8.0f req/s   %@", h2loadRate, h2loadStatus.trimmingCharacters(in: .whitespaces)))
if h2loadRate > 0 {
    print(String(format: "  transport / h2load: %.2f", Double(count) / transportTime / h2loadRate))
}
