import Foundation
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// Orders as the service hands them to a store: built and "signed" (a package of a few bytes), ready to commit.
enum Writes {
    static let type = DevelopmentKeys.orderType
    static let start = Date(timeIntervalSince1970: 1_795_342_530)

    /// Order `id`: the sample order in `status`, updated at `date`, with `package` bytes.
    static func order(
        _ id: String = "A-1001",
        status: String = "open",
        at date: Date = start,
        package: String = "v1",
        assets: [String: Data]? = nil,
        token: String = "token-of-sixteen-chars"
    ) -> OrderWrite {
        var document = SampleOrder.document(orderIdentifier: id)
        document["status"] = .string(status)
        document["updatedAt"] = .string(RFC3339.format(date))
        return OrderWrite(
            orderTypeIdentifier: type,
            orderIdentifier: id,
            authenticationToken: token,
            document: document,
            createdAt: start,
            updatedAt: date,
            assets: assets,
            package: Data(package.utf8)
        )
    }
}

extension StoreLifecycle where Self: OrderStorage {
    /// Commits the next version of `id` over whatever version it is at now, as the service would (its pushes and
    /// `order.updated` queued), the store's clock stopped at `date`.
    @discardableResult
    func update(
        _ id: String = "A-1001",
        status: String = "open",
        at date: Date,
        package: String = "next",
        assets: [String: Data]? = nil
    ) async throws -> OrderUpdate {
        guard let current = try await at(date).currentOrder(type: Writes.type, id: id) else { throw StoreError.orderNotFound }
        var write = Writes.order(id, status: status, at: date, package: package, assets: assets)
        // What the service's updates cause: a push to every registered device, and `order.updated`.
        write.effects = WriteEffects(
            pushRegisteredDevices: true,
            webhooks: [.orderUpdated(version: current.order.version + 1, status: write.status)]
        )
        return try await updateOrder(write, expectedVersion: current.order.version)
    }

}

extension OrderStorage {
    /// The package stored for the order's current version.
    func currentPackage(_ id: String = "A-1001") async throws -> String? {
        try await orderForFetch(type: Writes.type, id: id)?.package.map { String(decoding: $0, as: UTF8.self) }
    }
}
