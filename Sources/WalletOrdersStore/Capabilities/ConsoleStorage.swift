import Foundation

/// The operator's figures: counts and day-by-day activity.
public protocol ConsoleStorage: Sendable {
    /// What happened day by day since `since`, of every order or of one merchant's.
    func activity(merchant: Int64?, since: Date, now: Date) async throws -> StoreActivity
    /// Counts for admins.
    func stats(now: Date) async throws -> StoreStats
}
