import Foundation
import Prometheus
import Synchronization
import WalletOrdersAPNS
import WalletOrdersHTTP
import WalletOrdersPush
import WalletOrdersService
import WalletOrdersStore

/// What the outboxes' workers report: each push's and each webhook delivery's outcome, and the credentials APNs refused.
extension ServiceMetrics {
    /// Counts what became of a round of pushes, APNs' refusals of the credentials in it, and times its sending.
    public func pushesFinished(_ round: PushRound) {
        for (_, outcome) in round.outcomes {
            let label =
                switch outcome {
                case .delivered: "delivered"
                case .retry: "retry"
                case .unsent: "unsent"
                case .failed: "failed"
                case .tokenRejected: "token_rejected"
                }
            pushAttempts(label).increment()
        }
        for (type, reason) in round.refusedCredentials { refusedCredentials(type, reason).increment() }
        let sending = registry.makeDurationHistogram(
            descriptor: Self.name(
                "push_send_duration",
                "seconds",
                "Seconds from sending a batch of pushes (one order type's share of a round) to APNs' last answer"
            ),
            labels: [],
            buckets: Self.pushSendBuckets
        )
        for duration in round.sendDurations { sending.record(duration) }
    }

    /// Counts what became of a round of webhook deliveries.
    public func webhooksFinished(_ outcomes: [WebhookOutcome]) {
        for outcome in outcomes {
            let label =
                switch outcome {
                case .delivered: "delivered"
                case .retry: "retry"
                case .failed: "failed"
                }
            webhookAttempts(label).increment()
        }
    }

    func pushAttempts(_ outcome: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("push_attempts", "total", "Push attempts by outcome"),
            labels: [("outcome", outcome)]
        )
    }

    func webhookAttempts(_ outcome: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.name("webhook_attempts", "total", "Webhook delivery attempts by outcome"),
            labels: [("outcome", outcome)]
        )
    }

    func refusedCredentials(_ orderType: String, _ reason: APNSReason) -> Counter {
        registry.makeCounter(
            descriptor: Self.name(
                "apns_auth_failures",
                "total",
                "Pushes APNs refused for the provider's credentials (token or certificate), by order type and reason"
            ),
            labels: [("order_type", orderType), ("reason", reason.rawValue)]
        )
    }

    /// The label of merchant `slug`: itself, for the first `maxMerchantLabels` merchants seen (the default one
    /// among them), `other` for the rest.
}
