import Foundation
import WalletOrdersStore

extension StoreLifecycle {
    /// This store with its clock stopped at `time`, so that the next calls happen then: `store.at(start).register(…)`.
    /// For tests of what a store does at given times (leases, retries, windows); the clock stays there until moved.
    public func at(_ time: Date) -> Self {
        clock.pin(at: time)
        return self
    }
}
