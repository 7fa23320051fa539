import Foundation
import Logging
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

// Seeds a store through its bulk path for Benchmarks/scale.sh: ORDERS orders (`o<i>`, token `bench-token-<i>-0123456789`,
// no package yet: each is signed on its first fetch) and DEVICES devices (`dev<d>`) registered for PER_DEVICE
// orders each (orders d·PER_DEVICE … d·PER_DEVICE + PER_DEVICE − 1, modulo ORDERS), then gathers the planner's
// statistics. Usage: scale-benchmark DATABASE ORDERS DEVICES PER_DEVICE ORDER_TYPE

let arguments = CommandLine.arguments
guard arguments.count == 6, let orders = Int(arguments[2]), let devices = Int(arguments[3]),
    let perDevice = Int(arguments[4])
else {
    FileHandle.standardError.write(Data("usage: scale-benchmark DATABASE ORDERS DEVICES PER_DEVICE ORDER_TYPE\n".utf8))
    exit(2)
}
let location = arguments[1]
let type = arguments[5]
var logger = Logger(label: "scale")
logger.logLevel = .warning
let store = try await TestStore.open(location, logger: logger)

let start = Date()
let created = Date(timeIntervalSince1970: 1_795_000_000)
func elapsed() -> String { String(format: "%.1f s", Date().timeIntervalSince(start)) }

// One document per order: the sample order with its own identifier, token and web service.
let template = SampleOrder.document(orderTypeIdentifier: type)
let batch = 10_000
for first in stride(from: 0, to: orders, by: batch) {
    let records = (first..<min(first + batch, orders)).map { index in
        var document = template
        let token = "bench-token-\(index)-0123456789"
        document["orderIdentifier"] = .string("o\(index)")
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string("https://orders.example.com")
        return ImportedOrder(
            orderTypeIdentifier: type,
            orderIdentifier: "o\(index)",
            authenticationToken: token,
            document: document,
            createdAt: created,
            updatedAt: created,
            package: nil
        )
    }
    try await store.importRecords(orders: records, registrations: [])
    if (first / batch) % 20 == 19 { print("  \(first + batch) orders (\(elapsed()))") }
}
print("\(orders) orders in \(elapsed())")

let devicesPerBatch = batch / max(perDevice, 1)
for first in stride(from: 0, to: devices, by: devicesPerBatch) {
    let records = (first..<min(first + devicesPerBatch, devices)).flatMap { device in
        (0..<perDevice).map { slot in
            ImportedRegistration(
                deviceIdentifier: "dev\(device)",
                orderTypeIdentifier: type,
                orderIdentifier: "o\((device * perDevice + slot) % orders)",
                pushToken: String(format: "%064x", device),
                createdAt: created
            )
        }
    }
    try await store.importRecords(orders: [], registrations: records)
    if (first / devicesPerBatch) % 50 == 49 { print("  \(first + devicesPerBatch) devices (\(elapsed()))") }
}
print("\(devices) devices, \(devices * perDevice) registrations in \(elapsed())")
try await store.optimize()
print("statistics gathered in \(elapsed())")
await store.close()
