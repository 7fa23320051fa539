import Foundation
import WalletOrdersStore

/// What merchants read: an order, its package, listings of orders and of the devices registered for one.
extension OrderService {
    /// The current order and how many devices are registered for it.
    public func order(type: String, id: String) async throws -> (order: StoredOrder, registrations: Int) {
        guard let order = try await store.order(type: type, id: id) else { throw OrderServiceError.orderNotFound }
        return (order, try await store.registrationCount(type: type, id: id))
    }

    /// The signed package of the order's current version, with the head it belongs to.
    public func package(type: String, id: String) async throws -> FetchedPackage {
        if let entry = cache?.entry(type: type, id: id) {
            counters.packageCacheHit()
            return FetchedPackage(head: entry.head, package: entry.package)
        }
        let ticket = cache?.ticket()
        counters.fetchReadStore()
        guard let fetched = try await store.orderForFetch(type: type, id: id) else { throw OrderServiceError.orderNotFound }
        return try await complete(fetched, type: type, id: id, ticket: ticket)
    }

    /// Orders newest first.
    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        try await store.orders(filter, page: page)
    }

    /// The devices registered for an order, newest first.
    public func registrations(type: String, id: String) async throws -> [Registration] {
        guard try await store.orderHead(type: type, id: id) != nil else { throw OrderServiceError.orderNotFound }
        return try await store.registrations(RegistrationFilter(type: type, id: id), limit: Self.maxRegistrationsListed)
    }

    /// Every registration of one order is listed; an order followed by more devices than this is not a real one.
    static let maxRegistrationsListed = 100_000
}
