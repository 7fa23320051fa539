import Foundation

/// The operator's figures: counts and day-by-day activity.
public protocol ConsoleStorage: Sendable {
    /// What happened day by day since `since`, of every order or of one merchant's.
    func activity(merchant: Int64?, since: Date) async throws -> StoreActivity
    /// Counts for admins (the last hour's and day's by the store's clock).
    func stats() async throws -> StoreStats
}
