import Foundation
import Logging
import Synchronization
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting
import WalletOrdersWebhookModel
import WalletOrdersWebhooks

// Webhook deliveries per second for Benchmarks/webhooks.sh: queues EVENTS events for one endpoint at URL through the
// store's own write paths (a device registering for an order and unregistering: order.added_to_wallet and
// order.removed_from_wallet, each queued in its change's transaction), then times the worker (the libcurl
// transport, CONCURRENCY requests at once) delivering every one of them.
// Usage: webhook-benchmark DATABASE URL EVENTS [CONCURRENCY]

let arguments = CommandLine.arguments
guard arguments.count >= 4, let events = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: webhook-benchmark DATABASE URL EVENTS [CONCURRENCY]\n".utf8))
    exit(2)
}
let location = arguments[1]
let url = arguments[2]
let concurrency = arguments.count > 4 ? Int(arguments[4]) ?? 16 : 16
var logger = Logger(label: "webhooks")
logger.logLevel = .warning
let store = try await TestStore.open(location, logger: logger)

let type = "order.com.example.bench"
let created = Date(timeIntervalSince1970: 1_795_000_000)
var document = SampleOrder.document(orderTypeIdentifier: type)
document["orderIdentifier"] = .string("bench-1")
document["authenticationToken"] = .string("bench-token-0123456789")
let order = ImportedOrder(
    orderTypeIdentifier: type,
    orderIdentifier: "bench-1",
    authenticationToken: "bench-token-0123456789",
    document: document,
    createdAt: created,
    updatedAt: created,
    package: nil
)
try await store.importRecords(orders: [order], registrations: [])
try await store.addWebhookEndpoint(
    WebhookEndpoint(
        id: "whk_bench",
        merchantID: Merchant.defaultID,
        url: url,
        events: WebhookEvent.allCases,
        secret: WebhookSignature.newSecret(),
        createdAt: Date(),
        updatedAt: Date()
    ),
    maxPerMerchant: 10
)

var start = Date()
for index in 0..<(events / 2) {
    _ = try await store.register(
        device: "d\(index)",
        type: type,
        id: "bench-1",
        pushToken: "aa",
        maxDevices: nil,
        firstDevice: .addedToWallet
    )
    try await store.unregister(device: "d\(index)", type: type, id: "bench-1", lastDevice: .removedFromWallet)
}
let queueSeconds = Date().timeIntervalSince(start)
print(
    String(
        format: "queued %d events in %.2f s: %.0f events/s (a registration and an unregistration each)",
        events,
        queueSeconds,
        Double(events) / queueSeconds
    )
)

let delivered = Atomic(0)
let retried = Atomic(0)
let worker = WebhookWorker(
    store: store,
    transport: CurlWebhookTransport(concurrency: concurrency, allowPrivate: true),
    logger: logger,
    idleWait: .milliseconds(50),
    onOutcomes: { outcomes in
        for outcome in outcomes {
            if case .delivered = outcome { delivered.add(1, ordering: .relaxed) } else { retried.add(1, ordering: .relaxed) }
        }
    }
)
start = Date()
let task = Task { await worker.run() }
while delivered.load(ordering: .relaxed) < events && Date().timeIntervalSince(start) < 600 {
    try await Task.sleep(for: .milliseconds(5))
}
let seconds = Date().timeIntervalSince(start)
task.cancel()
await task.value
await worker.shutdown()
print(
    String(
        format: "delivered %d webhooks in %.2f s: %.0f deliveries/s (%d not 2xx, retried), %d requests at once",
        delivered.load(ordering: .relaxed),
        seconds,
        Double(delivered.load(ordering: .relaxed)) / seconds,
        retried.load(ordering: .relaxed),
        concurrency
    )
)
await store.close()
