import Foundation
import Logging
import WalletOrdersOutbox
import WalletOrdersStore

/// Sends what the push outbox holds: the outbox engine (`OutboxWorker`) driving the push lane (`PushLane`).
public typealias PushWorker = OutboxWorker<PushLane>

extension OutboxWorker where Lane == PushLane {
    /// A worker for the order types in `routes` (order type identifier → route), looking at least every `idleWait`;
    /// see `PushLane` for `firstRetryDelay` and `onRound`.
    public convenience init(
        store: any PushOutboxStorage & StoreLifecycle,
        routes: [String: PushRoute],
        logger: Logger,
        idleWait: Duration = .seconds(10),
        firstRetryDelay: TimeInterval = 2,
        onRound: @escaping @Sendable (PushRound) -> Void = { _ in }
    ) {
        let lane = PushLane(
            store: store,
            routes: routes,
            logger: logger,
            firstRetryDelay: firstRetryDelay,
            onRound: onRound
        )
        self.init(lane: lane, events: store, logger: logger, idleWait: idleWait)
    }
}
