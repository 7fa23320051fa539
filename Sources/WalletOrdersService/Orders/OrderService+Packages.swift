import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// Packages: built and signed for each write, assembled again from their seals, signed again when a seal no
/// longer fits.
extension OrderService {
    /// `fetched` with its package, and kept in the cache when `ticket` still holds. The store keeps a package's seal
    /// (`PackageSeal`), from which the package is assembled again without signing; when none is stored for the
    /// version, or its seal no longer fits (the template or the certificates changed since), the order is signed
    /// again (`resign`). A whole package stored instead of a seal is served as it is.
    func complete(
        _ fetched: FetchedOrder,
        type: String,
        id: String,
        ticket: FetchCache.Ticket?
    ) async throws
        -> FetchedPackage
    {
        let seal = fetched.package.flatMap(PackageSeal.init(encoded:))
        if let stored = fetched.package, seal == nil {
            counters.packageCacheHit()
            let package = ByteBuffer(bytes: stored)
            cache?.fill(type: type, id: id, head: fetched.head, package: package, ticket: ticket)
            return FetchedPackage(head: fetched.head, package: package)
        }
        guard let orderType = orderTypes[type], let current = try await store.orders.currentOrder(type: type, id: id) else {
            throw OrderServiceError.orderNotFound
        }
        let template = try await merchants.template(for: current.order.merchantID, of: orderType)
        if let seal, current.order.version == fetched.head.version,
            let data = try await assemble(orderType, template, current.order.document, current.assets, seal)
        {
            counters.packageCacheHit()
            let package = ByteBuffer(bytes: data)
            cache?.fill(type: type, id: id, head: current.order.head, package: package, ticket: ticket)
            return FetchedPackage(head: current.order.head, package: package)
        }
        return try await resign(orderType, template, current, ticket: ticket)
    }

    /// Signs the order's current version again and stores its seal: a fetch found no seal for it, or one the
    /// template or the certificates no longer fit. Counted, since it costs a signature on a device's request.
    private func resign(
        _ type: OrderType,
        _ template: OrderTemplate,
        _ current: CurrentOrder,
        ticket: FetchCache.Ticket?
    ) async throws
        -> FetchedPackage
    {
        counters.packageResigned()
        let order = current.order
        let built = try await build(type, template, order.document, current.assets)
        let package = ByteBuffer(bytes: built.data)
        let saved: Bool
        do {
            saved = try await store.orders.savePackage(
                type: type.identifier,
                id: order.orderIdentifier,
                version: order.version,
                data: built.stored
            )
        } catch StoreError.diskFull {
            // The seal only spares later fetches a signature: a full disk must not keep the device from its order.
            saved = false
        }
        if saved {
            cache?.fill(type: type.identifier, id: order.orderIdentifier, head: order.head, package: package, ticket: ticket)
        }
        return FetchedPackage(head: order.head, package: package)
    }

    /// The package `seal` was made for, assembled again on the write pool; nil when the seal no longer fits.
    private func assemble(
        _ type: OrderType,
        _ template: OrderTemplate,
        _ order: OrderDocument,
        _ assets: [String: Data],
        _ seal: PackageSeal
    )
        async throws -> Data?
    {
        counters.packageAssembled()
        return try await packaging { try type.package(order, assets: assets, template: template, seal: seal) }
    }

    /// Builds and signs a package on the write pool, counting it.
    func build(
        _ type: OrderType,
        _ template: OrderTemplate,
        _ order: OrderDocument,
        _ assets: [String: Data]
    )
        async throws -> BuiltPackage
    {
        counters.packageBuilt()
        return try await packaging { try type.package(order, assets: assets, template: template) }
    }

    /// Runs packaging `work` on the write pool; package errors become service errors.
    private func packaging<Result: Sendable>(_ work: () throws -> Result) async throws -> Result {
        do {
            return try await WritePool.shared.run { try work() }
        } catch let error as PackageError {
            throw Self.serviceError(error)
        }
    }

    static func serviceError(_ error: PackageError) -> OrderServiceError {
        switch error {
        case .invalidOrder(let problems): .invalid(problems)
        case .invalidAsset(let path, let problem):
            .invalidOrder("the assets are not valid", problems: [OrderProblem(path: "assets.\(path)", message: problem)])
        case .tooLarge(let bytes, let limit): .packageTooLarge(bytes: bytes, limit: limit)
        case .template, .signingIdentity, .failed: .packagingFailed("\(error)")
        }
    }
}
