import Foundation
import Synchronization
import WalletOrdersStore

/// The console's charts and counts, kept for a minute: counting a million orders' days, and every device, takes the
/// database a while, and a page reloaded or opened by several people at once should not ask again.
final class ActivityCache: Sendable {
    private struct Key: Hashable {
        let merchant: Int64?
        let days: Int
    }

    private let entries = Mutex<[Key: (at: Date, activity: StoreActivity, stats: StoreStats)]>([:])
    /// How long an answer is shown again.
    static let lifetime: TimeInterval = 60

    /// The activity and counts for `merchant` and `days`: kept ones younger than `lifetime`, or those `read` answers.
    func read(
        merchant: Int64?,
        days: Int,
        now: Date,
        _ read: () async throws -> (StoreActivity, StoreStats)
    ) async throws -> (StoreActivity, StoreStats) {
        let key = Key(merchant: merchant, days: days)
        if let kept = entries.withLock({ $0[key] }), now.timeIntervalSince(kept.at) < Self.lifetime, kept.at <= now {
            return (kept.activity, kept.stats)
        }
        let (activity, stats) = try await read()
        entries.withLock { entries in
            // A thousand merchants times three ranges at most; the old ones go when the table grows past that.
            if entries.count > 3_000 { entries.removeAll() }
            entries[key] = (now, activity, stats)
        }
        return (activity, stats)
    }
}
