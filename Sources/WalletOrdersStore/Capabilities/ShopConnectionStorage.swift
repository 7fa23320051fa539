import Foundation

/// Merchants' connected shops, and the platform webhooks already taken from each (so that a webhook sent again is
/// taken once).
public protocol ShopConnectionStorage: Sendable {
    /// Stores a new connection; throws `StoreError.tooManyShops` when its merchant has `maxPerMerchant` already.
    func addShopConnection(_ connection: ShopConnection, maxPerMerchant: Int) async throws
    /// The connection `id`, or nil when there is none.
    func shopConnection(id: String) async throws -> ShopConnection?
    /// The connections of one merchant, or of every merchant (nil), oldest first.
    func shopConnections(merchantID: Int64?) async throws -> [ShopConnection]
    /// Stores `connection` over the one of its id (its secret, settings and `updatedAt`); answers whether there was
    /// one.
    func replaceShopConnection(_ connection: ShopConnection) async throws -> Bool
    /// Deletes the connection `id` of `merchantID` and the webhooks taken from it; answers whether there was one.
    func deleteShopConnection(id: String, merchantID: Int64) async throws -> Bool
    /// Whether the webhook `webhookID` of connection `connectionID` was taken already (the platform sent it again).
    func hasTakenShopWebhook(connectionID: String, webhookID: String) async throws -> Bool
    /// Notes that the webhook `webhookID` of connection `connectionID` was taken; answers false when it had been
    /// noted already.
    func takeShopWebhook(connectionID: String, webhookID: String) async throws -> Bool
    /// Deletes the notes of webhooks taken more than `age` seconds ago; answers how many.
    @discardableResult
    func pruneShopWebhooks(olderThan age: TimeInterval) async throws -> Int
}
