import ServiceLifecycle
import WalletOrdersPush

/// Runs the push worker beside the HTTP server, and stops it on graceful shutdown: pushes not yet sent stay in
/// the outbox, and those in flight are requeued on the next start. The worker's transports stop with it.
struct PushWorkerService: Service {
    let worker: PushWorker

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await worker.run()
        }
        await worker.shutdownTransports()
    }
}
