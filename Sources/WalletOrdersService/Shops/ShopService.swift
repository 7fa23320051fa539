import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersShops
import WalletOrdersStore

/// Shops that write no code: a merchant's Shopify store, WooCommerce site or UCP sender, connected by an operator, whose
/// own order and fulfillment webhooks create and update the merchant's Wallet orders. A feature beside the order
/// service: connections live in the store's `ShopConnectionStorage`, and every order it writes goes through the
/// order service's rules, as the merchant API's do.
public struct ShopService: Sendable {
    let orders: OrderService
    let store: any ShopConnectionStorage

    /// The most shops one merchant may connect.
    public static let maxPerMerchant = 10
    /// How long a platform's webhook id is remembered, to take a webhook sent again once: longer than any platform
    /// retries (Shopify tries for 48 hours, WooCommerce less).
    public static let webhookMemory: TimeInterval = 7 * 86_400

    /// The shops of `orders`' merchants, kept in its store.
    public init(orders: OrderService) {
        self.orders = orders
        store = orders.store.shops
    }

    /// Connects a shop of `kind` to the merchant `slug`: `shop` names it as its platform does, `secret` is what it signs
    /// webhooks with (for UCP, the sender's UCP profile, a JWK or a PEM public key). Answers the connection, whose id its webhook URL ends
    /// with.
    public func connect(
        merchant slug: String,
        kind: ShopKind,
        shop: String,
        secret: String,
        orderManagementURL: String? = nil,
        skipApplePay: Bool = true
    ) async throws -> ShopConnection {
        let merchant = try await merchant(slug)
        var problems = Self.shopProblems(kind: kind, shop: shop) + Self.secretProblems(kind: kind, secret: secret)
        problems += orderManagementURL.map(Self.orderManagementURLProblems) ?? []
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems, of: "shop") }
        let time = orders.now()
        let connection = ShopConnection(
            id: "shp_" + Random.hex(bytes: 8),
            merchantID: merchant.id,
            kind: kind,
            shop: shop,
            secret: secret,
            orderManagementURL: orderManagementURL,
            skipApplePay: skipApplePay,
            createdAt: time,
            updatedAt: time
        )
        do {
            try await store.addShopConnection(connection, maxPerMerchant: Self.maxPerMerchant)
        } catch StoreError.tooManyShops {
            throw MerchantRegistryError.invalid(
                [OrderProblem(path: "", message: "merchant \(slug) has \(Self.maxPerMerchant) shops connected, as many as it may")],
                of: "shop"
            )
        }
        return connection
    }

    /// The shops connected to the merchant `slug`, oldest first, their secrets left out.
    public func connections(of slug: String) async throws -> [ShopConnection] {
        try await store.shopConnections(merchantID: try await merchant(slug).id)
    }

    /// Changes what is given of the merchant `slug`'s connection `id`: a new secret (the old one is refused from then
    /// on), the order page template (an empty string removes it), whether Apple Pay orders are skipped.
    public func change(
        _ id: String,
        of slug: String,
        secret: String? = nil,
        orderManagementURL: String? = nil,
        skipApplePay: Bool? = nil
    ) async throws -> ShopConnection {
        let merchant = try await merchant(slug)
        guard var connection = try await store.shopConnection(id: id), connection.merchantID == merchant.id else {
            throw MerchantRegistryError.invalid([OrderProblem(path: "id", message: "merchant \(slug) has no shop \(id)")], of: "shop")
        }
        var problems: [OrderProblem] = []
        if let secret {
            problems += Self.secretProblems(kind: connection.kind, secret: secret)
            connection.secret = secret
        }
        if let orderManagementURL {
            if !orderManagementURL.isEmpty { problems += Self.orderManagementURLProblems(orderManagementURL) }
            connection.orderManagementURL = orderManagementURL.isEmpty ? nil : orderManagementURL
        }
        if let skipApplePay { connection.skipApplePay = skipApplePay }
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems, of: "shop") }
        connection.updatedAt = orders.now()
        guard try await store.replaceShopConnection(connection) else {
            throw MerchantRegistryError.invalid([OrderProblem(path: "id", message: "merchant \(slug) has no shop \(id)")], of: "shop")
        }
        return connection
    }

    /// Disconnects the merchant `slug`'s shop `id`: its webhooks are refused from then on. The orders it made stay.
    public func disconnect(_ id: String, of slug: String) async throws {
        let merchant = try await merchant(slug)
        guard try await store.deleteShopConnection(id: id, merchantID: merchant.id) else {
            throw MerchantRegistryError.invalid([OrderProblem(path: "id", message: "merchant \(slug) has no shop \(id)")], of: "shop")
        }
    }

    private func merchant(_ slug: String) async throws -> Merchant {
        guard let merchant = try await orders.merchants.merchant(slug: slug) else { throw MerchantRegistryError.notFound(slug) }
        return merchant
    }

    /// What is wrong with `shop` as a name of a shop of `kind`: a Shopify shop is its `*.myshopify.com` domain, a
    /// WooCommerce site and a UCP sender their https address.
    static func shopProblems(kind: ShopKind, shop: String) -> [OrderProblem] {
        switch kind {
        case .shopify:
            let labels = shop.split(separator: ".", omittingEmptySubsequences: false)
            let valid =
                shop.utf8.count <= 255 && labels.count == 3 && labels[1] == "myshopify" && labels[2] == "com"
                && !labels[0].isEmpty && labels[0].utf8.allSatisfy { Self.isDomainByte($0) }
            return valid ? [] : [OrderProblem(path: "shop", message: "must be the shop's domain, such as acme.myshopify.com")]
        case .woocommerce, .ucp:
            return Self.httpsProblem(shop, path: "shop").map { [$0] } ?? []
        }
    }

    /// What is wrong with `secret` for a shop of `kind`.
    static func secretProblems(kind: ShopKind, secret: String) -> [OrderProblem] {
        switch kind {
        case .shopify, .woocommerce:
            guard secret.utf8.count >= 16, secret.utf8.count <= 512, !secret.contains(where: \.isNewline) else {
                return [OrderProblem(path: "secret", message: "must be the webhook secret: 16 to 512 characters on one line")]
            }
            return []
        case .ucp:
            guard secret.utf8.count <= 16_384, !ucpKeys(secret).isEmpty else {
                return [
                    OrderProblem(
                        path: "secret",
                        message: "must be the sender's public key: its UCP profile's JSON, a JWK, or PEM (BEGIN PUBLIC KEY)"
                    )
                ]
            }
            return []
        }
    }

    /// The keys a UCP connection's `secret` holds: the sender's profile (`/.well-known/ucp`, its `keys`), one JWK, or
    /// a PEM public key; the P-256 and Ed25519 ones, which are those UCP signs with.
    static func ucpKeys(_ secret: String) -> [UCPSigningKey] {
        guard secret.utf8.count <= 16_384 else { return [] }
        guard secret.first == "{" else { return (try? UCPSigningKey(pem: secret)).map { [$0] } ?? [] }
        guard let json = try? JSONValue.parse(Data(secret.utf8)) else { return [] }
        if json["kty"] != nil { return (try? UCPSigningKey(jwk: json)).map { [$0] } ?? [] }
        return UCPSigningKey.keys(inProfile: json)
    }

    /// What is wrong with an order page template: an https address, with `{id}` or `{number}` for the shop's order.
    static func orderManagementURLProblems(_ template: String) -> [OrderProblem] {
        if let problem = Self.httpsProblem(template.replacingOccurrences(of: "{id}", with: "1"), path: "orderManagementURL") {
            return [problem]
        }
        return []
    }

    private static func httpsProblem(_ text: String, path: String) -> OrderProblem? {
        guard text.utf8.count <= 2_048, let url = URL(string: text), url.scheme == "https", url.host?.isEmpty == false,
            !text.contains(where: { $0.isWhitespace || $0.isNewline })
        else {
            return OrderProblem(path: path, message: "must be an https address")
        }
        return nil
    }

    private static func isDomainByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
