import Foundation
import WalletOrdersStore

/// What merchants read: an order, its package, listings of orders and of the devices registered for one; each
/// merchant its own orders only, another merchant's answering exactly as a missing one does.
extension OrderService {
    /// Wallet's identifier of the order `merchant` names `id`; throws `orderNotFound` for an identifier in another
    /// merchant's namespace (the default merchant naming `acme:1001`), as for a missing order.
    func owned(_ id: String, by merchant: Merchant) async throws -> String {
        let walletID = merchant.walletIdentifier(id)
        if merchant.isDefault, let colon = walletID.firstIndex(of: ":"),
            let owner = try await merchants.merchant(slug: String(walletID[..<colon])), !owner.isDefault
        {
            throw OrderServiceError.orderNotFound
        }
        return walletID
    }

    /// `merchant`'s order and how many devices are registered for it.
    public func order(
        type: String,
        id: String,
        for merchant: Merchant = .singleShop
    ) async throws
        -> (order: StoredOrder, registrations: Int)
    {
        let id = try await owned(id, by: merchant)
        guard let order = try await store.orders.order(type: type, id: id), order.merchantID == merchant.id else {
            throw OrderServiceError.orderNotFound
        }
        return (order, try await store.registrations.registrationCount(type: type, id: id))
    }

    /// The signed package of the current version of `merchant`'s order, with the head it belongs to.
    public func package(type: String, id: String, for merchant: Merchant = .singleShop) async throws -> FetchedPackage {
        // The identifier, namespaced, is the merchant's own: no other merchant's order can be named.
        try await currentPackage(type: type, id: try await owned(id, by: merchant))
    }

    /// The current package of the order Wallet knows as `type` and `id`.
    func currentPackage(type: String, id: String) async throws -> FetchedPackage {
        if let entry = cache?.entry(type: type, id: id) {
            counters.packageCacheHit()
            return FetchedPackage(head: entry.head, package: entry.package)
        }
        let ticket = cache?.ticket()
        counters.fetchReadStore()
        guard let fetched = try await store.orders.orderForFetch(type: type, id: id) else { throw OrderServiceError.orderNotFound }
        return try await complete(fetched, type: type, id: id, ticket: ticket)
    }

    /// `merchant`'s orders newest first.
    public func orders(_ filter: OrderFilter, page: PageRequest, for merchant: Merchant) async throws -> Page<OrderSummary> {
        var filter = filter
        filter.merchant = merchant.id
        return try await store.orders.orders(filter, page: page)
    }

    /// Every order newest first, whoever's: for admins.
    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        try await store.orders.orders(filter, page: page)
    }

    /// `merchant`'s orders with its own order number `orderNumber`, newest first: what a checkout that knows only
    /// its number hands Apple Pay. At most `limit`.
    public func orders(
        numbered orderNumber: String,
        for merchant: Merchant,
        limit: Int = 20
    ) async throws
        -> [StoredOrder]
    {
        let summaries = try await store.orders.orders(
            OrderFilter(merchant: merchant.id, orderNumber: orderNumber),
            page: PageRequest(limit: limit)
        ).records
        var orders: [StoredOrder] = []
        for summary in summaries {
            if let order = try await store.orders.order(type: summary.orderTypeIdentifier, id: summary.orderIdentifier),
                order.merchantID == merchant.id
            {
                orders.append(order)
            }
        }
        return orders
    }

    /// The devices registered for `merchant`'s order, newest first.
    public func registrations(
        type: String,
        id: String,
        for merchant: Merchant = .singleShop
    ) async throws
        -> [Registration]
    {
        let id = try await owned(id, by: merchant)
        guard let order = try await store.orders.order(type: type, id: id), order.merchantID == merchant.id else {
            throw OrderServiceError.orderNotFound
        }
        return try await store.registrations.registrations(RegistrationFilter(type: type, id: id), limit: Self.maxRegistrationsListed)
    }

    /// Every registration of one order is listed; an order followed by more devices than this is not a real one.
    static let maxRegistrationsListed = 100_000
}
