import Foundation
import Logging
import WalletOrdersOutbox
import WalletOrdersStore
import WalletOrdersWebhookModel

/// Sends what the webhook outbox holds: the outbox engine (`OutboxWorker`) driving the webhook lane (`WebhookLane`).
public typealias WebhookWorker = OutboxWorker<WebhookLane>

extension OutboxWorker where Lane == WebhookLane {
    /// A worker sending through `transport`, looking at least every `idleWait`; see `WebhookLane` for `retryDelays`
    /// and `onOutcomes`.
    public convenience init(
        store: any WebhookOutboxStorage & StoreLifecycle,
        transport: CurlWebhookTransport,
        logger: Logger,
        retryDelays: [TimeInterval] = WebhookLane.retryDelays,
        idleWait: Duration = .seconds(10),
        onOutcomes: @escaping @Sendable ([WebhookOutcome]) -> Void = { _ in }
    ) {
        let lane = WebhookLane(
            store: store,
            transport: transport,
            logger: logger,
            retryDelays: retryDelays,
            onOutcomes: onOutcomes
        )
        self.init(lane: lane, events: store, logger: logger, idleWait: idleWait, role: "webhooks")
    }
}
