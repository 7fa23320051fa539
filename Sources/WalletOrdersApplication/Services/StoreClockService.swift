import ServiceLifecycle
import WalletOrdersService
import WalletOrdersStore

/// Reads the store's clock again every minute while the service runs (see `StoreClock`).
struct StoreClockService: Service {
    let clock: StoreClock
    let store: any OrderStore

    func run() async throws {
        await cancelWhenGracefulShutdown { await clock.keepSynchronized(with: store) }
    }
}
