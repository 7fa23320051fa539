import Foundation

/// Merchants' webhook endpoints and the deliveries made to them, as merchants and the console see them.
public protocol WebhookEndpointStorage: Sendable {
    /// Stores a merchant's new endpoint; throws `StoreError.tooManyWebhooks` when the merchant has `maxPerMerchant`.
    func addWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerMerchant: Int) async throws
    /// The endpoints of one merchant, or of every merchant (nil), oldest first.
    func webhookEndpoints(merchantID: Int64?) async throws -> [WebhookEndpoint]
    /// Changes what `change` names of an endpoint of `merchantID`; nil when the merchant has no such endpoint.
    /// Enabling an endpoint puts its failed deliveries back in the queue, due now.
    func changeWebhookEndpoint(
        id: String,
        merchantID: Int64,
        _ change: WebhookEndpointChange
    ) async throws
        -> WebhookEndpoint?
    /// Deletes an endpoint of `merchantID` with its deliveries; answers whether there was one.
    func deleteWebhookEndpoint(id: String, merchantID: Int64) async throws -> Bool
    /// An endpoint's deliveries, newest first, one page; nil when `merchantID` has no such endpoint.
    func webhookDeliveries(
        endpointID: String,
        merchantID: Int64,
        page: PageRequest
    ) async throws
        -> Page<WebhookDelivery>?
    /// Queues a delivery of an endpoint of `merchantID` again, due now, with the same message id; answers the
    /// delivery, nil when there is no such delivery.
    func redeliver(deliveryID: Int64, endpointID: String, merchantID: Int64) async throws -> WebhookDelivery?
    /// The webhook deliveries about an order, newest first, at most `limit`.
    func webhookDeliveries(type: String, id: String, limit: Int) async throws -> [WebhookDelivery]
}
