/// How far a shipping fulfillment has come, in Wallet's words: `open`, `processing`, `shipped`, `onTheWay`,
/// `outForDelivery`, `delivered`. `issue` and `cancelled` stand outside that line; a pickup's statuses too.
enum ShippingProgress {
    private static let line = ["open", "processing", "shipped", "onTheWay", "outForDelivery", "delivered"]

    /// The place of `status` on the line, or nil for a status off it.
    static func rank(_ status: String?) -> Int? {
        status.flatMap { line.firstIndex(of: $0) }
    }

    /// Whether going from `old` to `new` would move a shipment back along the line (`delivered` to `onTheWay`).
    /// Moving to or from a status off the line never counts as back: a problem or a cancellation is news.
    static func movesBack(from old: String?, to new: String?) -> Bool {
        guard let before = rank(old), let after = rank(new) else { return false }
        return after < before
    }
}
