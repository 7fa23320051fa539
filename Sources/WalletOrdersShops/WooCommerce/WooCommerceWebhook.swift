import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// WooCommerce's webhooks: their signature, and what the order topics' payloads change of a Wallet order.
///
/// WooCommerce signs the raw body with HMAC-SHA256 under the webhook's secret and sends the base64 of it in
/// `X-WC-Webhook-Signature`; the topic comes in `X-WC-Webhook-Topic` (`order.updated`), the delivery's id in
/// `X-WC-Webhook-Delivery-ID`. The payload of `order.created` and `order.updated` is the REST API's order (v3);
/// that of `order.deleted` holds the order's `id` only. WooCommerceWebhook+Order.swift and
/// WooCommerceWebhook+Tracking.swift say what each field becomes.
///
/// When a webhook is saved, WooCommerce first sends a ping whose body is `webhook_id=<id>` (a form, not JSON), which
/// `update(topic:body:context:)` refuses as unreadable: answer it 200 all the same, or WooCommerce will not save the
/// webhook as active.
public enum WooCommerceWebhook {
    /// The request headers WooCommerce sends, lowercased.
    public static let signatureHeader = "x-wc-webhook-signature"
    public static let topicHeader = "x-wc-webhook-topic"
    public static let deliveryIDHeader = "x-wc-webhook-delivery-id"

    /// Every topic `update(topic:body:context:)` maps.
    public static let topics: Set<String> = ["order.created", "order.updated", "order.deleted"]

    /// Whether `signatureHeader` (the value of `X-WC-Webhook-Signature`) is WooCommerce's signature of `body` under
    /// `secret`. False for a missing, overlong or wrong header and for an empty secret, alike; compared in constant time.
    public static func verify(body: [UInt8], signatureHeader: String?, secret: String) -> Bool {
        guard !secret.isEmpty, let given = signatureHeader, given.utf8.count <= ShopifyWebhook.maxHeaderLength else { return false }
        return ConstantTime.equals(given.trimmingCharacters(in: .whitespaces), signature(of: body, secret: secret))
    }

    /// What WooCommerce sends in `X-WC-Webhook-Signature` for `body`: the base64 of its HMAC-SHA256 under the UTF-8
    /// bytes of `secret`. For tools and tests that stand in for WooCommerce.
    public static func signature(of body: [UInt8], secret: String) -> String {
        Data(HMACSHA256.code(key: Array(secret.utf8), message: body)).base64EncodedString()
    }

    /// What a signed webhook's `body` changes, by its `topic`.
    public static func update(topic: String, body: [UInt8], context: ShopMappingContext) throws(ShopPayloadError) -> ShopUpdate {
        guard topics.contains(topic) else { throw .unsupportedTopic(topic) }
        let payload = try ShopPayload.object(body)
        guard topic != "order.deleted" else {
            guard let id = ShopField.identifier(payload["id"]) else { throw .unreadable("id is missing") }
            return .deleted(externalOrderID: id)
        }
        return .order(try order(payload, context: context))
    }
}
