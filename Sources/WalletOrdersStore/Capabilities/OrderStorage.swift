import Foundation
import WalletOrdersModel

/// Orders, their versions, assets and packages: what merchants write and devices fetch.
public protocol OrderStorage: Sendable {
    /// Stores a new order (version 1) with its assets and package; throws `StoreError.orderExists` when the
    /// type and identifier are taken.
    func createOrder(_ order: OrderWrite) async throws -> StoredOrder
    /// The order with its assets, as the write path reads it before building the next version; nil when none.
    func currentOrder(type: String, id: String) async throws -> CurrentOrder?
    /// Commits the next version of an order, if it is still at `expectedVersion`: the document, its package, its
    /// history row and what it causes (`OrderWrite.effects`: a push to every registered device, webhook
    /// events), all or nothing. Throws
    /// `StoreError.versionConflict` when another write got there first, `StoreError.orderNotFound` when it is gone.
    func updateOrder(_ order: OrderWrite, expectedVersion: Int) async throws -> OrderUpdate
    /// The order, or nil when there is none.
    func order(type: String, id: String) async throws -> StoredOrder?
    /// What checking a device's token needs, without the document or package; nil when there is no such order.
    func orderHead(type: String, id: String) async throws -> OrderHead?
    /// What answering a device about an order needs, and the stored package of its current version when there
    /// is one; nil when there is no such order. One read: this is the request devices make most.
    func orderForFetch(type: String, id: String) async throws -> FetchedOrder?
    /// Stores the package of `version`, unless the order has moved on; answers whether it was stored.
    @discardableResult
    func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool
    /// Orders newest first (or oldest first), filtered, one page. Every filter is served by an index, so that a
    /// page answers in milliseconds at millions of orders.
    func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary>
    /// An order's versions, newest first, one page: `page.before` is a version number, and a page holds the
    /// versions below it.
    func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion>
    /// Loads many orders and registrations at once, without pushes or history beyond version 1: for imports
    /// and benchmarks. Orders come first; registrations must name orders that exist.
    func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws
}

extension OrderStorage {
    /// Every version of an order, oldest first: for tools that show its whole history.
    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        var newestFirst: [OrderVersion] = []
        var before: Int64?
        repeat {
            let page = try await versions(type: type, id: id, page: PageRequest(limit: 500, before: before))
            newestFirst += page.records
            before = page.next
        } while before != nil
        return newestFirst.reversed()
    }
}
