import Foundation
import WalletOrdersStore

/// What operators and the metrics read, and the fixes they make.
extension OrderService {
    /// Registrations newest first, of one device, one order type, one order, or all of them.
    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await store.registrations.registrations(filter, limit: limit)
    }

    /// Outbox rows newest first.
    public func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord> {
        try await store.pushes.pushes(filter, page: page)
    }

    /// How many pushes the outbox holds in each status.
    public func pushCounts() async throws -> PushCounts {
        try await store.pushes.pushCounts()
    }

    /// What the device log entries add up to, in bytes as the total cap counts them.
    public func logBytes() async throws -> Int {
        try await store.logs.logBytes()
    }

    /// Device log entries newest first.
    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        try await store.logs.logs(filter, page: page)
    }

    /// The pushes for `merchant`'s orders, newest first; `filter.id` names an order as the merchant does.
    public func pushes(_ filter: PushFilter, page: PageRequest, for merchant: Merchant) async throws -> Page<PushRecord> {
        var filter = filter
        filter.merchant = merchant.id
        if let id = filter.id { filter.id = merchant.walletIdentifier(id) }
        return try await store.pushes.pushes(filter, page: page)
    }

    /// The device log entries that name one of `merchant`'s orders (for the default merchant: those that name none
    /// of another merchant's), newest first.
    public func logs(_ filter: LogFilter, page: PageRequest, for merchant: Merchant) async throws -> Page<DeviceLogEntry> {
        var filter = filter
        filter.merchant = merchant.id
        return try await store.logs.logs(filter, page: page)
    }

    /// Every merchant as the store has it now, with what each holds (the directory's copy is read only when merchants
    /// change, not as their orders come and go).
    public func merchantsHolding() async throws -> [Merchant] {
        try await store.merchants.merchants()
    }

    /// Deletes registrations whose last push failed for good with nothing newer for them (an operator's fix);
    /// answers how many.
    public func pruneFailedRegistrations() async throws -> Int {
        try await store.registrations.pruneFailedRegistrations()
    }

    /// Deletes device log entries last received more than `age` seconds ago; answers how many.
    public func pruneLogs(olderThan age: TimeInterval) async throws -> Int {
        try await store.logs.pruneLogs(olderThan: age)
    }

    /// Every version of an order, oldest first (each change record bounded as stored).
    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        try await store.orders.versions(type: type, id: id)
    }

    /// Counts for admins.
    public func stats() async throws -> StoreStats {
        try await store.console.stats()
    }

    /// Whether the database answers.
    public func isHealthy() async -> Bool {
        await store.lifecycle.isReachable()
    }

    /// Whether the database answers, and the room left on its disk against `minFreeDiskBytes`.
    public func health() async -> ServiceHealth {
        ServiceHealth(databaseReachable: await isHealthy(), disk: store.lifecycle.diskSpace(), minFreeDiskBytes: minFreeDiskBytes)
    }

    /// Signs the current version of every order of a configured type again and stores its seal, unless the order
    /// moved on meanwhile (that version has a fresh seal already): after a certificate renewal. Orders of other
    /// types are left as they are. Answers how many packages were stored.
    public func rebuildPackages() async throws -> Int {
        var rebuilt = 0
        var cursor: Int64?
        repeat {
            let page = try await store.orders.orders(OrderFilter(), page: PageRequest(limit: 100, before: cursor))
            for summary in page.records {
                guard let type = orderTypes[summary.orderTypeIdentifier],
                    let current = try await store.orders.currentOrder(type: type.identifier, id: summary.orderIdentifier)
                else { continue }
                let template = try await merchants.template(for: current.order.merchantID, of: type)
                let package = try await build(type, template, current.order.document, current.assets)
                if try await store.orders.savePackage(
                    type: type.identifier,
                    id: current.order.orderIdentifier,
                    version: current.order.version,
                    data: package.stored
                ) {
                    rebuilt += 1
                }
            }
            cursor = page.next
        } while cursor != nil
        return rebuilt
    }
}
