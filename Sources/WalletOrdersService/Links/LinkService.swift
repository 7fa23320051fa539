import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersStore

/// Download links: the URL a "Track with Apple Wallet" button or an email points at, which answers the order's
/// current package to whoever holds it, within Apple's three rules for such URLs (unguessable, not anonymous,
/// not transferable) as far as a URL can keep them. A feature beside the order service: it reads the order service's
/// orders, packages, merchants and clock, and keeps its links in the store's `LinkStorage`.
public struct LinkService: Sendable {
    let orders: OrderService
    let store: any LinkStorage

    /// The download links of `orders`' orders, kept in its store.
    public init(orders: OrderService) {
        self.orders = orders
        store = orders.store.links
    }

    /// Makes a link to `merchant`'s order.
    public func create(type: String, id: String, for merchant: Merchant, _ request: LinkRequest) async throws -> CreatedLink {
        let lifetime = request.expiresIn ?? OrderLinks.defaultLifetime
        guard (OrderLinks.minLifetime...OrderLinks.maxLifetime).contains(lifetime) else {
            throw OrderServiceError.invalidOrder(
                "the link is not valid",
                problems: [
                    OrderProblem(
                        path: "expiresIn",
                        message: "must be \(OrderLinks.minLifetime) to \(OrderLinks.maxLifetime) seconds (30 days), not \(lifetime)"
                    )
                ]
            )
        }
        // The identifier, namespaced, is the merchant's own: no other merchant's order can be named.
        let walletID = try await orders.owned(id, by: merchant)
        guard try await orders.store.orders.orderHead(type: type, id: walletID) != nil else { throw OrderServiceError.orderNotFound }
        let (linkID, reference) = OrderLinks.make()
        let time = orders.now()
        let link = OrderLink(
            id: linkID,
            hash: OrderLinks.hash(reference),
            merchantID: merchant.id,
            orderTypeIdentifier: type,
            orderIdentifier: walletID,
            reusable: request.reusable,
            createdAt: time,
            expiresAt: time.addingTimeInterval(TimeInterval(lifetime))
        )
        do {
            try await store.addOrderLink(link, maxLive: OrderLinks.maxLivePerOrder)
        } catch StoreError.tooManyLinks {
            throw OrderServiceError.tooManyLinks(limit: OrderLinks.maxLivePerOrder)
        }
        return CreatedLink(
            id: linkID,
            url: "\(orders.webServiceURL)/\(OrderLinks.path)/\(reference)",
            expiresAt: link.expiresAt,
            reusable: link.reusable
        )
    }

    /// Revokes one of the links of `merchant`'s order.
    public func revoke(_ linkID: String, type: String, id: String, for merchant: Merchant) async throws {
        let walletID = try await orders.owned(id, by: merchant)
        guard try await store.revokeOrderLink(id: linkID, merchantID: merchant.id, type: type, orderID: walletID) else {
            throw OrderServiceError.linkNotFound
        }
    }

    /// The current package of the order the link `reference` is for, downloaded by `client` (its address), when the
    /// link serves it. Every link that does not, whatever the reason, is refused alike (`linkNotFound`). With
    /// `taking` false (a `HEAD`) the answer is the same and the link is left as it was: not used up, no download
    /// counted, no `link.downloaded` webhook.
    public func download(reference: String, client: String?, taking: Bool = true) async throws -> LinkDownload {
        if let own = OwnLink.claim(reference) { return try await download(own: own) }
        guard reference.utf8.count <= OrderLinks.maxReferenceLength else { throw OrderServiceError.linkNotFound }
        let (hash, client) = (OrderLinks.hash(reference), ConstantTime.digest(client ?? ""))
        let use = try await orders.priority.device {
            taking
                ? try await store.useOrderLink(hash: hash, client: client, grace: OrderLinks.grace) { use in
                    .linkDownloaded(linkID: use.linkID, downloads: use.downloads)
                }
                : try await store.peekOrderLink(hash: hash, client: client, grace: OrderLinks.grace)
        }
        guard let use else { throw OrderServiceError.linkNotFound }
        let package = try await orders.priority.device {
            try await orders.currentPackage(type: use.orderTypeIdentifier, id: use.orderIdentifier)
        }
        let merchant = try await orders.merchants.merchant(id: use.merchantID) ?? .singleShop
        return LinkDownload(package: package, ownIdentifier: merchant.ownIdentifier(use.orderIdentifier), use: use)
    }

    /// Revokes a link of an order (an operator's action); answers whether there was such a link, unrevoked.
    public func revoke(_ linkID: String, type: String, id: String) async throws -> Bool {
        guard let link = try await store.orderLinks(type: type, id: id).first(where: { $0.id == linkID }) else {
            return false
        }
        return try await store.revokeOrderLink(id: linkID, merchantID: link.merchantID, type: type, orderID: id)
    }
}
