import Foundation
import Logging
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

// Seeds a store for Benchmarks/merchants.sh: MERCHANTS merchants (`m<k>`, each with one key) holding ORDERS orders
// between them, order i belonging to merchant i mod MERCHANTS (Wallet's identifier `m<k>:o<i>`, token
// `bench-token-<i>-0123456789`, no package yet: each is signed on its first fetch). Writes the keys to KEYS_FILE,
// one a line, merchant k's on line k.
// Usage: merchant-benchmark DATABASE ORDERS MERCHANTS ORDER_TYPE KEYS_FILE

let arguments = CommandLine.arguments
guard arguments.count == 6, let orders = Int(arguments[2]), let merchants = Int(arguments[3]), merchants > 0 else {
    FileHandle.standardError.write(Data("usage: merchant-benchmark DATABASE ORDERS MERCHANTS ORDER_TYPE KEYS_FILE\n".utf8))
    exit(2)
}
let location = arguments[1]
let type = arguments[4]
var logger = Logger(label: "merchants")
logger.logLevel = .warning
let store = try await TestStore.open(location, logger: logger)

let start = Date()
let created = Date(timeIntervalSince1970: 1_795_000_000)
func elapsed() -> String { String(format: "%.1f s", Date().timeIntervalSince(start)) }

var ids: [Int64] = []
var keys: [String] = []
for index in 0..<merchants {
    let merchant = try await store.createMerchant(
        slug: "m\(index)",
        displayName: "Merchant \(index)",
        orderTypes: [],
        limits: MerchantLimits()
    )
    let key = MerchantAPIKey()
    try await store.addMerchantKey(key.record(merchant: merchant.id, now: created))
    ids.append(merchant.id)
    keys.append(key.text)
}
try keys.joined(separator: "\n").appending("\n").write(toFile: arguments[5], atomically: true, encoding: .utf8)
print("\(merchants) merchants with a key each in \(elapsed())")

let template = SampleOrder.document(orderTypeIdentifier: type)
let batch = 10_000
for first in stride(from: 0, to: orders, by: batch) {
    let records = (first..<min(first + batch, orders)).map { index in
        var document = template
        let token = "bench-token-\(index)-0123456789"
        let id = "m\(index % merchants):o\(index)"
        document["orderIdentifier"] = .string(id)
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string("https://orders.example.com")
        return ImportedOrder(
            orderTypeIdentifier: type,
            orderIdentifier: id,
            authenticationToken: token,
            document: document,
            createdAt: created,
            updatedAt: created,
            package: nil,
            merchantID: ids[index % merchants]
        )
    }
    try await store.importRecords(orders: records, registrations: [])
    if (first / batch) % 20 == 19 { print("  \(first + batch) orders (\(elapsed()))") }
}
print("\(orders) orders in \(elapsed())")
try await store.optimize()
await store.close()
