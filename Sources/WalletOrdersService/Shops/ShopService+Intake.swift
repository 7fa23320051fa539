import Foundation
import WalletOrdersModel
import WalletOrdersShops
import WalletOrdersStore

/// A connected shop's webhook, taken: signed as its platform documents, taken once by the platform's id for it, its
/// order mapped (`WalletOrdersShops`) and laid over the Wallet order the connection keeps for it, which the order
/// service creates or updates as it does for the merchant API. A change that maps to the same Wallet order writes
/// nothing.
extension ShopService {
    /// The largest body taken: a shop's order with a few hundred line items is far below it.
    public static let bodyLimit = 1 << 20

    /// A request to a shop's webhook endpoint, as the HTTP layer hands it over: what a UCP signature covers (this
    /// service's public scheme and authority, the path the sender was given), every header and the body.
    public typealias Webhook = UCPWebhook.Request

    /// The connection `id` of `kind`, when `webhook` is signed by it: nil alike for a connection that does not exist,
    /// is of another kind, or did not sign it (one 401 for all).
    public func authenticate(_ webhook: Webhook, kind: ShopKind, connection id: String) async throws -> ShopConnection? {
        guard id.utf8.count <= 64, let connection = try await store.shopConnection(id: id), connection.kind == kind else {
            return nil
        }
        return Self.isSigned(webhook, by: connection, now: orders.now()) ? connection : nil
    }

    /// Takes `webhook`, signed by `connection` of `merchant` (see `authenticate`): what it came to.
    public func take(
        _ webhook: Webhook,
        from connection: ShopConnection,
        for merchant: Merchant
    ) async throws
        -> ShopIntakeResult
    {
        guard merchant.id == connection.merchantID else { throw OrderServiceError.orderNotFound }
        guard merchant.status == .active else { throw OrderServiceError.merchantSuspended(merchant.slug) }
        let delivery = Self.deliveryID(of: webhook, kind: connection.kind)
        if let delivery, try await store.hasTakenShopWebhook(connectionID: connection.id, webhookID: delivery) {
            return .duplicate
        }
        let result = try await apply(webhook, from: connection, for: merchant)
        // Noted once applied: a webhook that failed is taken again when the platform sends it again, and one whose
        // note a crash prevented is applied again, which changes nothing (the same payload maps to the same order).
        if let delivery { _ = try await store.takeShopWebhook(connectionID: connection.id, webhookID: delivery) }
        return result
    }

    private func apply(
        _ webhook: Webhook,
        from connection: ShopConnection,
        for merchant: Merchant
    ) async throws
        -> ShopIntakeResult
    {
        let platform = Self.platform(connection.kind)
        let context = ShopMappingContext(now: orders.now(), orderManagementURLTemplate: connection.orderManagementURL)
        let update: ShopUpdate
        do {
            update = try platform.update(topic: Self.topic(of: webhook, kind: connection.kind), body: webhook.body, context: context)
        } catch {
            // The same body never maps: answered 200, so that the platform does not send it again and again.
            return .unreadable(error.description)
        }
        guard let external = update.externalOrderID else { return .ignored(reason: "the webhook names no order") }
        if case .ignored(_, let reason) = update { return .ignored(reason: reason) }
        let ownID = "\(connection.kind.rawValue)-\(external)"
        let walletID = merchant.walletIdentifier(ownID)
        guard let type = try await orderType(of: walletID, for: merchant) else {
            // No Wallet order yet: only the whole order makes one.
            guard case .order(let order) = update else {
                return .ignored(reason: "no Wallet order holds shop order \(external) yet")
            }
            if order.cancelled { return .ignored(reason: "shop order \(external) was cancelled before Wallet held it") }
            if order.paidWithApplePay, connection.skipApplePay {
                return .skipped(reason: "paid with Apple Pay, which gave the shopper a Wallet order of the platform's")
            }
            let document = update.applied(to: OrderDocument(fields: ["orderIdentifier": .string(ownID)]))
            do {
                let written = try await orders.create(
                    OrderInput(fields: document.fields),
                    for: merchant,
                    author: .shop(connection.id),
                    createdAt: order.placedAt
                )
                return .created(orderIdentifier: ownID, version: written.order.version)
            } catch OrderServiceError.invalidOrder(_, let problems) {
                return .invalid(problems)
            } catch OrderServiceError.orderExists {
                // Made a moment ago by the same shop's other webhook: this one is laid over it.
                return try await self.update(update, type: nil, walletID: walletID, ownID: ownID, from: connection, for: merchant)
            }
        }
        return try await self.update(update, type: type, walletID: walletID, ownID: ownID, from: connection, for: merchant)
    }

    private func update(
        _ update: ShopUpdate,
        type: String?,
        walletID: String,
        ownID: String,
        from connection: ShopConnection,
        for merchant: Merchant
    ) async throws -> ShopIntakeResult {
        var resolved = type
        if resolved == nil { resolved = try await orderType(of: walletID, for: merchant) }
        guard let type = resolved else { return .ignored(reason: "no Wallet order holds it") }
        do {
            let outcome = try await orders.update(type: type, id: walletID, for: merchant, author: .shop(connection.id)) {
                document,
                assets in
                OrderService.Revision(document: update.applied(to: document), assets: assets)
            }
            switch outcome {
            case .written(let written):
                _ = try await orders.applyingWaitingEvents(written, merchant: merchant)
                return .updated(orderIdentifier: ownID, version: written.order.version)
            case .unchanged(let order):
                return .unchanged(orderIdentifier: ownID, version: order.version)
            }
        } catch OrderServiceError.invalidOrder(_, let problems) {
            return .invalid(problems)
        }
    }

    /// The order type of the Wallet order `walletID`, when there is one: the merchant's order types are looked at in
    /// turn (a shop's order is made with the merchant's one order type, or the first it names).
    private func orderType(of walletID: String, for merchant: Merchant) async throws -> String? {
        let types = merchant.orderTypes.isEmpty ? orders.orderTypes.keys.sorted() : merchant.orderTypes
        for type in types where try await orders.store.orders.orderHead(type: type, id: walletID) != nil {
            return type
        }
        return nil
    }

    /// Whether `webhook` carries the signature of `connection`'s platform over its body.
    static func isSigned(_ webhook: Webhook, by connection: ShopConnection, now: Date) -> Bool {
        switch connection.kind {
        case .shopify:
            return ShopifyWebhook.verify(
                body: webhook.body,
                hmacHeader: webhook.header(ShopifyWebhook.hmacHeader),
                secret: connection.secret
            )
        case .woocommerce:
            return WooCommerceWebhook.verify(
                body: webhook.body,
                signatureHeader: webhook.header(WooCommerceWebhook.signatureHeader),
                secret: connection.secret
            )
        case .ucp:
            let keys = ucpKeys(connection.secret)
            return !keys.isEmpty && UCPWebhook.verify(webhook, keys: keys, now: now)
        }
    }

    /// The platform's id of this delivery, by which one sent again is taken once.
    static func deliveryID(of webhook: Webhook, kind: ShopKind) -> String? {
        let header =
            switch kind {
            case .shopify: ShopifyWebhook.webhookIDHeader
            case .woocommerce: WooCommerceWebhook.deliveryIDHeader
            case .ucp: UCPWebhook.webhookIDHeader
            }
        guard let id = webhook.header(header), !id.isEmpty, id.utf8.count <= 128 else { return nil }
        return id
    }

    static func topic(of webhook: Webhook, kind: ShopKind) -> String? {
        switch kind {
        case .shopify: webhook.header(ShopifyWebhook.topicHeader)
        case .woocommerce: webhook.header(WooCommerceWebhook.topicHeader)
        case .ucp: nil
        }
    }

    /// The mapping module's name of a connection's kind: the same platforms, by the same names.
    static func platform(_ kind: ShopKind) -> ShopPlatform {
        switch kind {
        case .shopify: .shopify
        case .woocommerce: .woocommerce
        case .ucp: .ucp
        }
    }
}

/// What a shop's webhook came to, as its endpoint answers it (200 for each: the platform need not send it again).
public enum ShopIntakeResult: Sendable, Equatable {
    /// A Wallet order was made for the shop's order (`orderIdentifier` is the merchant's own id of it).
    case created(orderIdentifier: String, version: Int)
    /// The Wallet order took the change: a new version, pushed to its devices.
    case updated(orderIdentifier: String, version: Int)
    /// The change maps to the Wallet order as it is: nothing written.
    case unchanged(orderIdentifier: String, version: Int)
    /// The platform sent this delivery before; it was taken then.
    case duplicate
    /// Left alone on purpose (an order paid with Apple Pay, when the connection says so).
    case skipped(reason: String)
    /// Nothing to do (an event about an order with no Wallet order yet, a topic that changes nothing).
    case ignored(reason: String)
    /// The body is not the platform's payload for its topic.
    case unreadable(String)
    /// The Wallet order it would make or change is not valid (the merchant's template lacks what Wallet requires).
    case invalid([OrderProblem])
}

extension UCPWebhook.Request {
    /// The value of the first header named `name` (in lower case), in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }
}
