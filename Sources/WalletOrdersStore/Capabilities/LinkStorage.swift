import Foundation

/// Download links to orders' packages (Track with Apple Wallet): made, used, revoked, expired.
public protocol LinkStorage: Sendable {
    /// Stores a new link of an order; throws `StoreError.tooManyLinks` when the order has `maxLive` links that are
    /// neither expired nor revoked.
    func addOrderLink(_ link: OrderLink, maxLive: Int) async throws
    /// Takes one download from the link whose reference hashes to `hash`, and answers whose order it is for; nil
    /// alike for a link that does not exist, expired, was revoked or is used up. A link that is not reusable serves
    /// its first download, and for `grace` after it the downloads of the same `client` (a retry), no other. The
    /// notice `downloaded` makes of the download taken is queued for the order's merchant in the same transaction.
    func useOrderLink(
        hash: Data,
        client: String,
        grace: TimeInterval,
        downloaded: @escaping @Sendable (OrderLinkUse) -> WebhookNotice?
    ) async throws -> OrderLinkUse?
    /// Whose order the link whose reference hashes to `hash` is for, when `useOrderLink` would serve `client` now,
    /// taking nothing: a `HEAD`, which mail scanners and link previews send, must not use a link up.
    /// `downloads` is the count so far.
    func peekOrderLink(hash: Data, client: String, grace: TimeInterval) async throws -> OrderLinkUse?
    /// Revokes a link of an order of `merchantID`; answers whether there was such a link, unrevoked.
    func revokeOrderLink(id: String, merchantID: Int64, type: String, orderID: String) async throws -> Bool
    /// Deletes the links that expired more than `age` seconds ago; answers how many.
    @discardableResult
    func pruneOrderLinks(expiredMoreThan age: TimeInterval) async throws -> Int
    /// An order's download links, newest first, whatever became of them.
    func orderLinks(type: String, id: String) async throws -> [OrderLinkState]
}
