/// A store as the service's parts reach it: each capability on its own, so that a part holds only what it needs,
/// and a test can stand in for one capability (counting the fetch's reads, say) while the rest stay the real store.
public struct StoreCapabilities: Sendable {
    /// Schema, health, clock, events, closing.
    public var lifecycle: any StoreLifecycle
    /// Orders, their versions and packages.
    public var orders: any OrderStorage
    /// Devices registered for orders.
    public var registrations: any RegistrationStorage
    /// What devices sent to the log endpoint.
    public var logs: any DeviceLogStorage
    /// The push outbox.
    public var pushes: any PushOutboxStorage
    /// Merchants' webhook endpoints and their deliveries.
    public var webhooks: any WebhookEndpointStorage
    /// The webhook outbox.
    public var webhookOutbox: any WebhookOutboxStorage
    /// Merchants, their templates and keys.
    public var merchants: any MerchantStorage
    /// Logistics partners and their keys.
    public var partners: any PartnerStorage
    /// Tracking events and the parcels orders follow.
    public var tracking: any TrackingStorage
    /// Download links.
    public var links: any LinkStorage
    /// The operator's counts and activity.
    public var console: any ConsoleStorage
    /// Merchants' connected shops.
    public var shops: any ShopConnectionStorage

    /// Every capability of `store`.
    public init(_ store: any OrderStore) {
        lifecycle = store
        orders = store
        registrations = store
        logs = store
        pushes = store
        webhooks = store
        webhookOutbox = store
        merchants = store
        partners = store
        tracking = store
        links = store
        console = store
        shops = store
    }
}
