import Foundation
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersWebhookModel

/// A merchant's webhook endpoints: URLs that hear, signed, when its orders are added to or removed from Wallet, are
/// updated, fail to reach a device, or are downloaded through a link. Every call names endpoints of the merchant
/// asking; another merchant's are answered as if they did not exist.
extension OrderService {
    /// The most endpoints a merchant may have.
    public static let maxWebhooksPerMerchant = 10
    /// How long a secret keeps signing beside its replacement after a rotation, so receivers can switch.
    public static let webhookSecretOverlap: TimeInterval = 86_400

    /// Adds an endpoint of `merchant`'s for `events` (all of them when nil); answers it with its new secret.
    public func createWebhook(url: String, events: [String]?, for merchant: Merchant) async throws -> WebhookEndpoint {
        var problems: [OrderProblem] = []
        if let problem = await WebhookURL.problem(with: url, allowPrivate: webhookAllowPrivate, lookup: webhookHostLookup) {
            problems.append(OrderProblem(path: "url", message: problem))
        }
        let chosen = Self.events(events, problems: &problems)
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the webhook is not valid", problems: problems) }
        let time = now()
        let endpoint = WebhookEndpoint(
            id: "whk_" + Random.hex(bytes: 8),
            merchantID: merchant.id,
            url: url,
            events: chosen,
            secret: WebhookSignature.newSecret(),
            createdAt: time,
            updatedAt: time
        )
        do {
            try await store.addWebhookEndpoint(endpoint, maxPerMerchant: Self.maxWebhooksPerMerchant)
        } catch StoreError.tooManyWebhooks {
            throw OrderServiceError.tooManyWebhooks(limit: Self.maxWebhooksPerMerchant)
        }
        return endpoint
    }

    /// `merchant`'s endpoints, oldest first.
    public func webhooks(for merchant: Merchant) async throws -> [WebhookEndpoint] {
        try await store.webhookEndpoints(merchantID: merchant.id)
    }

    /// One of `merchant`'s endpoints.
    public func webhook(_ id: String, for merchant: Merchant) async throws -> WebhookEndpoint {
        guard let endpoint = try await store.webhookEndpoints(merchantID: merchant.id).first(where: { $0.id == id }) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Changes an endpoint's URL, events, or whether it is enabled (enabling it sends what failed while it was not).
    public func changeWebhook(
        _ id: String,
        url: String?,
        events: [String]?,
        enabled: Bool?,
        for merchant: Merchant
    ) async throws -> WebhookEndpoint {
        var problems: [OrderProblem] = []
        if let url, let problem = await WebhookURL.problem(with: url, allowPrivate: webhookAllowPrivate, lookup: webhookHostLookup) {
            problems.append(OrderProblem(path: "url", message: problem))
        }
        let chosen = events.map { Self.events($0, problems: &problems) }
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the webhook is not valid", problems: problems) }
        let change = WebhookEndpointChange(url: url, events: chosen, enabled: enabled)
        guard let endpoint = try await store.changeWebhookEndpoint(id: id, merchantID: merchant.id, change, now: now()) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Gives an endpoint a new secret, answered this once; the old one keeps signing beside it for a day.
    public func rotateWebhookSecret(_ id: String, for merchant: Merchant) async throws -> WebhookEndpoint {
        let time = now()
        let change = WebhookEndpointChange(
            secret: WebhookSignature.newSecret(),
            previousSecretUntil: time.addingTimeInterval(Self.webhookSecretOverlap)
        )
        guard let endpoint = try await store.changeWebhookEndpoint(id: id, merchantID: merchant.id, change, now: time) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Deletes an endpoint and what it was sent.
    public func deleteWebhook(_ id: String, for merchant: Merchant) async throws {
        guard try await store.deleteWebhookEndpoint(id: id, merchantID: merchant.id) else {
            throw OrderServiceError.webhookNotFound
        }
    }

    /// An endpoint's deliveries, newest first.
    public func webhookDeliveries(_ id: String, page: PageRequest, for merchant: Merchant) async throws -> Page<WebhookDelivery> {
        guard let page = try await store.webhookDeliveries(endpointID: id, merchantID: merchant.id, page: page) else {
            throw OrderServiceError.webhookNotFound
        }
        return page
    }

    /// Sends a delivery again, now, with its message id (receivers that already took it can tell).
    public func redeliver(_ deliveryID: Int64, of id: String, for merchant: Merchant) async throws -> WebhookDelivery {
        let endpoint = try await webhook(id, for: merchant)
        guard endpoint.disabledAt == nil else { throw OrderServiceError.webhookDisabled }
        guard let delivery = try await store.redeliver(deliveryID: deliveryID, endpointID: id, merchantID: merchant.id, now: now())
        else { throw OrderServiceError.webhookNotFound }
        return delivery
    }

    /// The events `names` names (every event when nil), with a problem for each name that is not one.
    private static func events(_ names: [String]?, problems: inout [OrderProblem]) -> [WebhookEvent] {
        guard let names else { return WebhookEvent.allCases }
        var events: [WebhookEvent] = []
        for (index, name) in names.enumerated() {
            if let event = WebhookEvent(rawValue: name) {
                if !events.contains(event) { events.append(event) }
            } else {
                let known = WebhookEvent.allCases.map(\.rawValue).joined(separator: ", ")
                problems.append(OrderProblem(path: "events[\(index)]", message: "\(name) is not an event; the events are \(known)"))
            }
        }
        if names.isEmpty { problems.append(OrderProblem(path: "events", message: "must name at least one event")) }
        return events
    }
}
