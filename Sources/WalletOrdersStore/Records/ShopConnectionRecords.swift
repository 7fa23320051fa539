import Foundation

/// The shop platforms whose webhooks can drive a merchant's orders with no code of the merchant's.
public enum ShopKind: String, Sendable, Codable, CaseIterable {
    /// Shopify: `X-Shopify-Hmac-Sha256`, keyed with the app's client secret.
    case shopify
    /// WooCommerce: `X-WC-Webhook-Signature`, keyed with the webhook's secret.
    case woocommerce
    /// The Universal Commerce Protocol (`dev.ucp.shopping.order`): RFC 9421 message signatures by the sender's key.
    case ucp
}

/// A merchant's shop, connected: where its webhooks come from, what checks them, and how its orders become Wallet
/// orders. Its secret (or, for UCP, the sender's public key) is kept as it is, since checking a signature needs it,
/// and is never shown again after it is set.
public struct ShopConnection: Sendable, Equatable, Codable {
    /// Its public id (`shp_…`), the last segment of its webhook URL `/hooks/{kind}/{id}`.
    public let id: String
    public let merchantID: Int64
    public let kind: ShopKind
    /// The shop as its platform names it: a Shopify shop domain, a WooCommerce site URL, a UCP sender's profile.
    public var shop: String
    /// The HMAC secret (Shopify, WooCommerce) or the sender's public keys (UCP: its profile's JSON, a JWK or PEM).
    public var secret: String
    /// The order page Wallet links to, with `{id}` and `{number}` for the shop's order id and number; nil leaves
    /// `orderManagementURL` to the merchant's template.
    public var orderManagementURL: String?
    /// Whether orders paid with Apple Pay are skipped: the platform hands Apple Pay its own order details then.
    public var skipApplePay: Bool
    public let createdAt: Date
    public var updatedAt: Date

    public init(
        id: String,
        merchantID: Int64,
        kind: ShopKind,
        shop: String,
        secret: String,
        orderManagementURL: String? = nil,
        skipApplePay: Bool = true,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.merchantID = merchantID
        self.kind = kind
        self.shop = shop
        self.secret = secret
        self.orderManagementURL = orderManagementURL
        self.skipApplePay = skipApplePay
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, merchantID, kind, shop, orderManagementURL, skipApplePay, createdAt, updatedAt
    }

    /// Everything but the secret.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(merchantID, forKey: .merchantID)
        try container.encode(kind, forKey: .kind)
        try container.encode(shop, forKey: .shop)
        try container.encodeIfPresent(orderManagementURL, forKey: .orderManagementURL)
        try container.encode(skipApplePay, forKey: .skipApplePay)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            merchantID: try container.decode(Int64.self, forKey: .merchantID),
            kind: try container.decode(ShopKind.self, forKey: .kind),
            shop: try container.decode(String.self, forKey: .shop),
            secret: "",
            orderManagementURL: try container.decodeIfPresent(String.self, forKey: .orderManagementURL),
            skipApplePay: try container.decode(Bool.self, forKey: .skipApplePay),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            updatedAt: try container.decode(Date.self, forKey: .updatedAt)
        )
    }
}
