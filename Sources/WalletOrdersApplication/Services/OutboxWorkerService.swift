import ServiceLifecycle
import WalletOrdersOutbox

/// Runs an outbox worker (pushes, webhook deliveries) beside the HTTP server, and stops it on graceful shutdown:
/// work not yet sent stays in the outbox, and what was in flight goes back to it. What the lane sends through stops
/// with it.
struct OutboxWorkerService<Lane: OutboxLane>: Service {
    let worker: OutboxWorker<Lane>

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await worker.run()
        }
        await worker.shutdown()
    }
}
