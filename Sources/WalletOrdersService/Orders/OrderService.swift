import Foundation
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersWebhookModel

/// What the HTTP layer asks of the service: orders written, read and packaged, devices registered and answered,
/// with every rule applied here, not in the routes. Knows nothing of HTTP or of wire formats: it takes domain
/// values (`OrderInput`, `OrderPatch`, `FetchCondition`) and throws `OrderServiceError`s.
///
/// A write reads the order's current version, applies the change, validates it and builds and signs its package
/// outside any transaction, then asks the store to commit it only if the order is still at the version read; when
/// another write got there first, it starts again from the read. The store's lock is held for the commit alone.
///
/// The operations live by concern in `OrderService+Writes`, `+Reads`, `+Devices`, `+Packages` and `+Admin`.
public struct OrderService: Sendable {
    let store: StoreCapabilities
    public let orderTypes: [String: OrderType]
    /// Each order's `webServiceURL`.
    public let webServiceURL: String
    /// The clock every write and answer reads: the store's (`StoreLifecycle.clock`).
    public let now: @Sendable () -> Date
    let counters: Counters
    /// What is kept of device logs.
    public let logLimits: DeviceLogLimits
    /// The most devices one order may have registered (nil: no cap).
    public let maxDevicesPerOrder: Int?
    /// Below this many free bytes on the database's disk the service reports itself unhealthy (nil: never).
    public let minFreeDiskBytes: Int?
    /// The current package and head of recently fetched orders; nil when caching is off. See `FetchCache`.
    public let cache: FetchCache?
    /// Writes to one order from this instance take turns; see `update`.
    let writes = KeyedLock()
    /// Merchant writes give way to device requests.
    let priority = DevicePriority(cores: ProcessInfo.processInfo.activeProcessorCount)
    /// The merchants and their keys, in memory.
    public let merchants: MerchantDirectory
    /// Whether webhook URLs may name loopback and private addresses: for tests and development only.
    public let webhookAllowPrivate: Bool
    /// How the hosts of webhook URLs are looked up when a merchant names one.
    public let webhookHostLookup: WebhookHostLookup

    /// How many times a write reads and builds again after losing a race to a write from another instance.
    static let maxWriteAttempts = 10
    /// Fields the service sets; a merchant may send them only unchanged.
    static let managedFields = ["authenticationToken", "webServiceURL", "createdAt", "updatedAt"]

    /// The default size of the fetch cache: 64 MiB, a few thousand packages of a typical order.
    public static let defaultCacheCapacity = 64 << 20
    /// The default cap on devices per order: a person has a handful, a family a few handfuls.
    public static let defaultMaxDevicesPerOrder = 10
    /// The default room to keep free on the database's disk: a few hundred merchant writes with their images, time
    /// enough to act on `/healthz` before writes fail.
    public static let defaultMinFreeDiskBytes = 64 << 20

    /// A service over `store` (`StoreCapabilities(store)` for every capability of one), with a fetch cache of
    /// `cacheCapacity` bytes (0: none). `merchantKeys` (the configuration's) speak for the default merchant beside the
    /// keys stored for it. `webhookHostLookup` is the system's resolver in a server (`WebhookHostLookup.system`, with
    /// the transport); without it, webhook URLs must name their host by address.
    public init(
        store: StoreCapabilities,
        orderTypes: [OrderType],
        webServiceURL: String,
        counters: Counters = Counters(),
        logLimits: DeviceLogLimits = DeviceLogLimits(),
        cacheCapacity: Int = OrderService.defaultCacheCapacity,
        merchantKeys: [String] = [],
        maxDevicesPerOrder: Int? = OrderService.defaultMaxDevicesPerOrder,
        minFreeDiskBytes: Int? = OrderService.defaultMinFreeDiskBytes,
        webhookAllowPrivate: Bool = false,
        webhookHostLookup: WebhookHostLookup = .literalsOnly
    ) {
        self.store = store
        self.minFreeDiskBytes = minFreeDiskBytes
        self.webhookAllowPrivate = webhookAllowPrivate
        self.webhookHostLookup = webhookHostLookup
        self.logLimits = logLimits
        self.maxDevicesPerOrder = maxDevicesPerOrder
        self.orderTypes = Dictionary(uniqueKeysWithValues: orderTypes.map { ($0.identifier, $0) })
        self.webServiceURL = webServiceURL
        let clock = store.lifecycle.clock
        let now: @Sendable () -> Date = { clock.now() }
        self.now = now
        self.counters = counters
        let merchants = MerchantDirectory(
            merchants: store.merchants,
            partners: store.partners,
            lifecycle: store.lifecycle,
            configuredKeys: merchantKeys,
            now: now
        )
        self.merchants = merchants
        // Lives as long as the store, as the cache's task below does.
        Task { await merchants.watch() }
        if cacheCapacity > 0 {
            let cache = FetchCache(capacity: cacheCapacity)
            let events = store.lifecycle.events()
            // Lives as long as the store: its event stream ends when the store closes. The cache stays off until
            // the stream's first `resync`.
            Task { for await event in events { cache.apply(event) } }
            self.cache = cache
        } else {
            cache = nil
        }
    }
}
