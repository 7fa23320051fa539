import Foundation
import ServiceLifecycle
import WalletOrdersService
import WalletOrdersStore

/// Keeps the store's query planner statistics current, deletes links a day after they expired, tracking events
/// once they are older than their retention and shops' delivery ids after a week, every hour while the service runs, and closes the store when the service stops (it is the first service, so it stops last).
struct StoreUpkeepService: Service {
    let store: any OrderStore
    static let interval: Duration = .seconds(3_600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                if Task.isCancelled { break }
                try? await store.optimize()
                // Expired links serve nothing; a day later they are gone, so that making links takes no room for good.
                _ = try? await store.pruneOrderLinks(expiredMoreThan: 86_400)
                // Duplicates are recognised, and events wait for their tracking number, this long; no longer.
                _ = try? await store.pruneTrackingEvents(olderThan: OrderService.trackingEventRetention)
                // A platform sends a webhook again for days at most; its id is remembered a week.
                _ = try? await store.pruneShopWebhooks(olderThan: ShopService.webhookMemory)
            }
        }
        await store.close()
    }
}
