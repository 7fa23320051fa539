import Foundation
import Logging
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

// Seeds a store for Benchmarks/console.sh through its bulk path: MERCHANTS merchants (`m<k>`) holding ORDERS orders
// between them, order i belonging to merchant i mod MERCHANTS, created over the year before NOW (evenly, oldest
// first): Wallet's identifier `m<k>:o<i>`, order number `N<i>`, one parcel with tracking number `TRK<i>`, status
// cancelled for one order in a hundred and completed for one in ten; and a device `dev<i>` registered for every third
// order, its push token i's eight hexadecimal digits written backwards, then zeros (so that each token's start names
// one device, as random tokens' do). Then gathers the planner's statistics.
// Usage: console-benchmark DATABASE ORDERS MERCHANTS ORDER_TYPE NOW

let arguments = CommandLine.arguments
guard arguments.count == 6, let orders = Int(arguments[2]), let merchants = Int(arguments[3]), merchants > 0,
    let now = TimeInterval(arguments[5])
else {
    FileHandle.standardError.write(Data("usage: console-benchmark DATABASE ORDERS MERCHANTS ORDER_TYPE NOW\n".utf8))
    exit(2)
}
let type = arguments[4]
var logger = Logger(label: "console")
logger.logLevel = .warning
let store = try await TestStore.open(arguments[1], logger: logger)

let start = Date()
let year = 365 * 86_400.0
let first = Date(timeIntervalSince1970: now - year)
func elapsed() -> String { String(format: "%.1f s", Date().timeIntervalSince(start)) }

var ids: [Int64] = []
for index in 0..<merchants {
    let merchant = try await store.createMerchant(
        slug: "m\(index)",
        displayName: "Merchant \(index)",
        orderTypes: [],
        limits: MerchantLimits()
    )
    ids.append(merchant.id)
}
print("\(merchants) merchants in \(elapsed())")

let template = SampleOrder.document(orderTypeIdentifier: type)
let batch = 10_000
for low in stride(from: 0, to: orders, by: batch) {
    var registrations: [ImportedRegistration] = []
    let records = (low..<min(low + batch, orders)).map { index in
        var document = template
        let token = "bench-token-\(index)-0123456789"
        let id = "m\(index % merchants):o\(index)"
        let created = first.addingTimeInterval(year * Double(index) / Double(orders))
        document["orderIdentifier"] = .string(id)
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string("https://orders.example.com")
        document["orderNumber"] = .string("N\(index)")
        document["status"] = .string(index % 100 == 0 ? "cancelled" : index % 10 == 0 ? "completed" : "open")
        if index % 3 == 0 {
            registrations.append(
                ImportedRegistration(
                    deviceIdentifier: "dev\(index)",
                    orderTypeIdentifier: type,
                    orderIdentifier: id,
                    pushToken: String(String(format: "%08x", index).reversed()) + String(repeating: "0", count: 56),
                    createdAt: created.addingTimeInterval(60)
                )
            )
        }
        return ImportedOrder(
            orderTypeIdentifier: type,
            orderIdentifier: id,
            authenticationToken: token,
            document: document,
            createdAt: created,
            updatedAt: created,
            package: nil,
            merchantID: ids[index % merchants],
            tracking: [TrackedParcel(fulfillmentIdentifier: "parcel-1", trackingNumber: "TRK\(index)", carrier: "UPS")]
        )
    }
    try await store.importRecords(orders: records, registrations: registrations)
    if (low / batch) % 20 == 19 { print("  \(low + batch) orders (\(elapsed()))") }
}
print("\(orders) orders, \(orders / 3 + (orders % 3 == 0 ? 0 : 1)) registrations in \(elapsed())")
try await store.optimize()
print("statistics gathered in \(elapsed())")
await store.close()
