import Foundation
import WalletOrdersModel
import WalletOrdersStore

/// The body of a delivery, as the Standard Webhooks specification shapes it: `type`, `timestamp` (when the event
/// happened) and `data`. The same delivery always has the same body, on every attempt.
public enum WebhookPayload {
    /// `{"type", "timestamp", "data": {"orderTypeIdentifier", "orderIdentifier", "walletOrderIdentifier", …}}`:
    /// `orderIdentifier` is the merchant's own identifier (what its API calls take), `walletOrderIdentifier` the one
    /// Wallet knows; the event's own fields (a version and status, APNs' reason, a link's id) join them.
    public static func body(of job: WebhookJob) -> Data {
        let delivery = job.delivery
        var data = (try? JSONSerialization.jsonObject(with: Data(delivery.detail.utf8)) as? [String: Any]) ?? [:]
        let namespace = job.merchantSlug + ":"
        let own =
            job.merchantID != Merchant.defaultID && delivery.orderIdentifier.hasPrefix(namespace)
            ? String(delivery.orderIdentifier.dropFirst(namespace.count)) : delivery.orderIdentifier
        data["orderTypeIdentifier"] = delivery.orderTypeIdentifier
        data["orderIdentifier"] = own
        data["walletOrderIdentifier"] = delivery.orderIdentifier
        let body: [String: Any] = [
            "type": delivery.event.rawValue,
            "timestamp": timestamp(delivery.occurredAt),
            "data": data,
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// The request of one attempt at `now`: the Standard Webhooks headers, signed with every live secret.
    public static func request(for job: WebhookJob, now: Date) -> WebhookRequest {
        let body = body(of: job)
        let timestamp = now.unixSeconds
        let secrets = [job.secret] + (job.previousSecret.map { [$0] } ?? [])
        return WebhookRequest(
            url: job.url,
            headers: [
                "content-type: application/json",
                "user-agent: wallet-orders-webhooks",
                "webhook-id: \(job.delivery.messageID)",
                "webhook-timestamp: \(timestamp)",
                "webhook-signature: "
                    + WebhookSignature.header(id: job.delivery.messageID, timestamp: timestamp, body: body, secrets: secrets),
            ],
            body: body
        )
    }

    private static func timestamp(_ date: Date) -> String {
        RFC3339.format(date)
    }
}
