import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// Shopify's webhooks: their signature, and what each topic's payload changes of a Wallet order.
///
/// Shopify signs the raw body with HMAC-SHA256 under the app's client secret and sends the base64 of it in
/// `X-Shopify-Hmac-Sha256`; the topic comes in `X-Shopify-Topic`, the shop in `X-Shopify-Shop-Domain`, and the
/// delivery's id (the same when Shopify sends it again) in `X-Shopify-Webhook-Id`. Payloads are the Admin REST API's
/// resources: an order for `orders/*`, a fulfillment for `fulfillments/*`, a fulfillment event for
/// `fulfillment_events/create`. ShopifyWebhook+Order.swift and ShopifyWebhook+Fulfillments.swift say what each
/// field becomes.
public enum ShopifyWebhook {
    /// The request headers Shopify sends, lowercased.
    public static let hmacHeader = "x-shopify-hmac-sha256"
    public static let topicHeader = "x-shopify-topic"
    public static let shopDomainHeader = "x-shopify-shop-domain"
    public static let webhookIDHeader = "x-shopify-webhook-id"

    /// The topics whose payload is a whole order.
    public static let orderTopics: Set<String> = [
        "orders/create", "orders/updated", "orders/cancelled", "orders/paid", "orders/fulfilled", "orders/partially_fulfilled",
    ]
    /// Every topic `update(topic:body:context:)` maps: subscribe the connection to these.
    public static let topics: Set<String> = orderTopics.union([
        "orders/delete", "fulfillments/create", "fulfillments/update", "fulfillment_events/create",
    ])

    /// The longest header value looked at: a base64 HMAC-SHA256 is 44 characters.
    static let maxHeaderLength = 128

    /// Whether `hmacHeader` (the value of `X-Shopify-Hmac-Sha256`) is Shopify's signature of `body` under `secret` (the
    /// app's client secret). False for a missing, overlong or wrong header and for an empty secret, alike; compared
    /// in constant time.
    public static func verify(body: [UInt8], hmacHeader: String?, secret: String) -> Bool {
        guard !secret.isEmpty, let given = hmacHeader, given.utf8.count <= maxHeaderLength else { return false }
        return ConstantTime.equals(given.trimmingCharacters(in: .whitespaces), signature(of: body, secret: secret))
    }

    /// What Shopify sends in `X-Shopify-Hmac-Sha256` for `body`: the base64 of its HMAC-SHA256 under the UTF-8 bytes of
    /// `secret`. For tools and tests that stand in for Shopify.
    public static func signature(of body: [UInt8], secret: String) -> String {
        Data(HMACSHA256.code(key: Array(secret.utf8), message: body)).base64EncodedString()
    }

    /// What a signed webhook's `body` changes, by its `topic`.
    public static func update(topic: String, body: [UInt8], context: ShopMappingContext) throws(ShopPayloadError) -> ShopUpdate {
        guard topics.contains(topic) else { throw .unsupportedTopic(topic) }
        let payload = try ShopPayload.object(body)
        switch topic {
        case "orders/delete":
            guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing") }
            return .deleted(externalOrderID: id)
        case "fulfillments/create", "fulfillments/update":
            return try fulfillmentUpdate(payload, context: context)
        case "fulfillment_events/create":
            return try fulfillmentEventUpdate(payload, context: context)
        default:
            return .order(try order(payload, context: context))
        }
    }
}
