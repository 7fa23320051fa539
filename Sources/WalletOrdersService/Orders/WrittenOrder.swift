import WalletOrdersModel
import WalletOrdersStore

/// An order the service wrote, how many devices it queued a push for, and what some devices will not show.
public struct WrittenOrder: Sendable {
    public let order: StoredOrder
    public let pushesQueued: Int
    /// Paths into order.json with what older devices miss (objects newer than iOS 16, …); empty when nothing.
    public let warnings: [OrderProblem]
    /// Tracking numbers its fulfillments hold that the version before held not: events waiting for them apply now.
    let addedTrackingNumbers: [String]

    init(order: StoredOrder, pushesQueued: Int, warnings: [OrderProblem], addedTrackingNumbers: [String] = []) {
        self.order = order
        self.pushesQueued = pushesQueued
        self.warnings = warnings
        self.addedTrackingNumbers = addedTrackingNumbers
    }
}
