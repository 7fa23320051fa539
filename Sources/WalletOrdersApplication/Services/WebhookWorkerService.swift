import ServiceLifecycle
import WalletOrdersWebhooks

/// Runs the webhook worker beside the HTTP server, and stops it on graceful shutdown: deliveries not yet sent stay
/// in the outbox, and those in flight go back to it. The worker's transport stops with it.
struct WebhookWorkerService: Service {
    let worker: WebhookWorker

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await worker.run()
        }
        await worker.shutdownTransport()
    }
}
