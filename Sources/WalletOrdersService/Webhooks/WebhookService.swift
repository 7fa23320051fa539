import Foundation
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersWebhookModel

/// A merchant's webhook endpoints: URLs that hear, signed, when its orders are added to or removed from Wallet, are
/// updated, fail to reach a device, or are downloaded through a link. Every call names endpoints of the merchant
/// asking; another merchant's are answered as if they did not exist. A feature beside the order service: it reads the
/// order service's merchants and clock, and keeps its endpoints in the store's `WebhookEndpointStorage`.
public struct WebhookService: Sendable {
    let orders: OrderService
    let store: any WebhookEndpointStorage

    /// The webhooks of `orders`' merchants, kept in its store.
    public init(orders: OrderService) {
        self.orders = orders
        store = orders.store.webhooks
    }

    /// The most endpoints a merchant may have.
    public static let maxPerMerchant = 10
    /// How long a secret keeps signing beside its replacement after a rotation, so receivers can switch.
    public static let secretOverlap: TimeInterval = 86_400

    /// Adds an endpoint of `merchant`'s for `events` (all of them when nil); answers it with its new secret.
    public func create(url: String, events: [String]?, for merchant: Merchant) async throws -> WebhookEndpoint {
        var problems: [OrderProblem] = []
        if let problem = await WebhookURL.problem(with: url, allowPrivate: orders.webhookAllowPrivate, lookup: orders.webhookHostLookup) {
            problems.append(OrderProblem(path: "url", message: problem))
        }
        let chosen = Self.events(events, problems: &problems)
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the webhook is not valid", problems: problems) }
        let time = orders.now()
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
            try await store.addWebhookEndpoint(endpoint, maxPerMerchant: Self.maxPerMerchant)
        } catch StoreError.tooManyWebhooks {
            throw OrderServiceError.tooManyWebhooks(limit: Self.maxPerMerchant)
        }
        return endpoint
    }

    /// `merchant`'s endpoints, oldest first.
    public func endpoints(for merchant: Merchant) async throws -> [WebhookEndpoint] {
        try await store.webhookEndpoints(merchantID: merchant.id)
    }

    /// One of `merchant`'s endpoints.
    public func endpoint(_ id: String, for merchant: Merchant) async throws -> WebhookEndpoint {
        guard let endpoint = try await store.webhookEndpoints(merchantID: merchant.id).first(where: { $0.id == id }) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Changes an endpoint's URL, events, or whether it is enabled (enabling it sends what failed while it was not).
    public func change(
        _ id: String,
        url: String?,
        events: [String]?,
        enabled: Bool?,
        for merchant: Merchant
    ) async throws -> WebhookEndpoint {
        var problems: [OrderProblem] = []
        if let url, let problem = await WebhookURL.problem(with: url, allowPrivate: orders.webhookAllowPrivate, lookup: orders.webhookHostLookup) {
            problems.append(OrderProblem(path: "url", message: problem))
        }
        let chosen = events.map { Self.events($0, problems: &problems) }
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the webhook is not valid", problems: problems) }
        let change = WebhookEndpointChange(url: url, events: chosen, enabled: enabled)
        guard let endpoint = try await store.changeWebhookEndpoint(id: id, merchantID: merchant.id, change) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Gives an endpoint a new secret, answered this once; the old one keeps signing beside it for a day.
    public func rotateSecret(_ id: String, for merchant: Merchant) async throws -> WebhookEndpoint {
        let time = orders.now()
        let change = WebhookEndpointChange(
            secret: WebhookSignature.newSecret(),
            previousSecretUntil: time.addingTimeInterval(Self.secretOverlap)
        )
        guard let endpoint = try await store.changeWebhookEndpoint(id: id, merchantID: merchant.id, change) else {
            throw OrderServiceError.webhookNotFound
        }
        return endpoint
    }

    /// Deletes an endpoint and what it was sent.
    public func delete(_ id: String, for merchant: Merchant) async throws {
        guard try await store.deleteWebhookEndpoint(id: id, merchantID: merchant.id) else {
            throw OrderServiceError.webhookNotFound
        }
    }

    /// An endpoint's deliveries, newest first.
    public func deliveries(_ id: String, page: PageRequest, for merchant: Merchant) async throws -> Page<WebhookDelivery> {
        guard let page = try await store.webhookDeliveries(endpointID: id, merchantID: merchant.id, page: page) else {
            throw OrderServiceError.webhookNotFound
        }
        return page
    }

    /// Sends a delivery again, now, with its message id (receivers that already took it can tell).
    public func redeliver(_ deliveryID: Int64, of id: String, for merchant: Merchant) async throws -> WebhookDelivery {
        let endpoint = try await endpoint(id, for: merchant)
        guard endpoint.disabledAt == nil else { throw OrderServiceError.webhookDisabled }
        guard let delivery = try await store.redeliver(deliveryID: deliveryID, endpointID: id, merchantID: merchant.id)
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

    /// Every merchant's endpoints, oldest first (the operator's view).
    public func all() async throws -> [WebhookEndpoint] {
        try await store.webhookEndpoints(merchantID: nil)
    }
}
