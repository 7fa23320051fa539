import Logging
import ServiceLifecycle
import WalletOrdersService

/// Looks for stalled parcels every quarter of an hour while the service runs (`OrderService.flagStalledParcels`):
/// a parcel is found at most that long after its merchant's hours have passed. Every instance looks; each parcel is
/// moved once.
struct StalledParcelService: Service {
    let service: OrderService
    static let interval: Duration = .seconds(900)
    let logger = Logger(label: "wallet-orders.stalled-parcels")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                if Task.isCancelled { break }
                do {
                    let moved = try await service.flagStalledParcels()
                    if moved > 0 { logger.info("moved stalled parcels to issue", metadata: ["parcels": "\(moved)"]) }
                } catch {
                    logger.warning("looking for stalled parcels failed; trying again next time", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
