import Foundation
import Synchronization
import WalletOrdersStore

/// A real store's orders that count the calls made on them by name, for tests that must show how little a request
/// reads: what the fetch and the write path read of orders is what they count.
final class CountingStore: OrderStorage {
    let store: any OrderStorage
    private let counts = Mutex<[String: Int]>([:])

    init(_ store: any OrderStorage) {
        self.store = store
    }

    /// Calls made so far, by method name.
    var calls: [String: Int] { counts.withLock { $0 } }
    /// How many calls were made so far, of every method.
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
    func reset() { counts.withLock { $0.removeAll() } }

    private func count(_ name: String = #function) {
        let method = String(name.prefix { $0 != "(" })
        counts.withLock { $0[method, default: 0] += 1 }
    }

    func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        count()
        return try await store.createOrder(order)
    }
    func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        count()
        return try await store.currentOrder(type: type, id: id)
    }
    func updateOrder(_ order: OrderWrite, expectedVersion: Int) async throws -> OrderUpdate {
        count()
        return try await store.updateOrder(order, expectedVersion: expectedVersion)
    }
    func order(type: String, id: String) async throws -> StoredOrder? {
        count()
        return try await store.order(type: type, id: id)
    }
    func orderHead(type: String, id: String) async throws -> OrderHead? {
        count()
        return try await store.orderHead(type: type, id: id)
    }
    func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        count()
        return try await store.orderForFetch(type: type, id: id)
    }
    func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        count()
        return try await store.savePackage(type: type, id: id, version: version, data: data)
    }
    func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        count()
        return try await store.orders(filter, page: page)
    }
    func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion> {
        count()
        return try await store.versions(type: type, id: id, page: page)
    }
    func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws {
        count()
        try await store.importRecords(orders: orders, registrations: registrations)
    }
}
