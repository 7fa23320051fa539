/// The shop platforms whose webhooks make Wallet orders. The raw value names the platform in URLs and settings
/// (`POST /hooks/{platform}/{connection}`).
///
/// What the service does with a request to a connection's endpoint, all of it pure but the storage:
/// 1. Check the signature over the raw body, before reading it: `ShopifyWebhook.verify(body:hmacHeader:secret:)`,
///    `WooCommerceWebhook.verify(body:signatureHeader:secret:)` or `UCPWebhook.verify(_:keys:now:freshness:)`. Each
///    answers false alike for every failure: answer 401.
/// 2. Drop a delivery seen before, by the platform's id for it (`X-Shopify-Webhook-Id`, `X-WC-Webhook-Delivery-ID`,
///    `Webhook-Id`).
/// 3. `update(topic:body:context:)`. A `ShopPayloadError` is final (the same body never maps): answer 200 and log it.
/// 4. Find the Wallet order the connection keeps for `externalOrderID`. For a new one, only an `.order` makes it
///    (skip it when `paidWithApplePay` and the connection says so); start from what the service adds (identifiers,
///    merchant, template, `createdAt` from `placedAt`).
/// 5. `let changed = update.applied(to: document)`; write, push and tell the merchant only when `changed != document`.
public enum ShopPlatform: String, Sendable, CaseIterable, Codable {
    case shopify
    case woocommerce
    /// The Universal Commerce Protocol's order capability (`dev.ucp.shopping.order`).
    case ucp

    /// The platform's name, for people.
    public var name: String {
        switch self {
        case .shopify: "Shopify"
        case .woocommerce: "WooCommerce"
        case .ucp: "UCP"
        }
    }

    /// What a signed webhook's `body` changes, for the topic the platform sent it under (`X-Shopify-Topic`,
    /// `X-WC-Webhook-Topic`; UCP sends full orders only, and its topic is ignored). Check the signature first: this
    /// reads the body as the platform's, trusting what it says.
    public func update(topic: String?, body: [UInt8], context: ShopMappingContext) throws(ShopPayloadError) -> ShopUpdate {
        switch self {
        case .shopify: try ShopifyWebhook.update(topic: topic ?? "", body: body, context: context)
        case .woocommerce: try WooCommerceWebhook.update(topic: topic ?? "", body: body, context: context)
        case .ucp: .order(try UCPWebhook.order(body: body, context: context))
        }
    }
}
