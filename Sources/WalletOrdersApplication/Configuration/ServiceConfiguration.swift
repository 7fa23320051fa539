import Foundation
import WalletOrdersHTTP
import WalletOrdersService

/// Everything the service needs to start: where to listen, where the data lives, who may call, and the order
/// types it signs for.
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the data lives: an SQLite file (the default), or PostgreSQL for several instances.
    public var database = DatabaseLocation.sqlite(path: "data/wallet-orders.sqlite")
    /// Where development keys and the development merchant key go when none are configured: beside the SQLite
    /// file, or `data/` with PostgreSQL.
    public var dataFolder: URL {
        switch database {
        case .sqlite(let path): URL(fileURLWithPath: path).deletingLastPathComponent()
        case .postgres: URL(fileURLWithPath: "data")
        }
    }
    /// The public base URL devices reach the service at; it becomes each order's `webServiceURL`.
    /// Without one, the listening address stands in (for development: Wallet needs https).
    public var publicURL: String?

    /// `publicURL`, or the listening address when none is set; never ends in `/`.
    public var webServiceURL: String {
        var url = publicURL ?? "http://\(host):\(port)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
    /// Whether orders point devices at plain http: development only, as Wallet needs https.
    public var allowsHTTPWebService: Bool { webServiceURL.lowercased().hasPrefix("http://") }
    /// Bearer keys accepted on the merchant API.
    public var merchantKeys: [String] = []
    /// The bearer key for `/admin` and `/metrics`, if any: read-only.
    public var adminKey: String?
    /// The bearer key of the operator's API (`/api/v1/admin/merchants…`), which changes merchants and their keys.
    public var operatorKey: String?
    /// The order types this service signs and serves.
    public var orderTypes: [OrderTypeConfiguration] = []
    /// With no order type configured, the template folder the development order type uses instead of the sample.
    public var developmentTemplate: String?
    /// Whether `/playground` is on once an order type is configured (behind the admin key, as a merchant of its
    /// own, `playground`, that touches no other merchant's orders). In development it is always on.
    public var playground = false
    /// Whether webhook URLs may name loopback, private and link-local addresses: for tests and development only.
    public var webhookAllowPrivate = false
    /// The most devices one order may have registered; past it, a new device's registration is refused (429).
    public var maxDevicesPerOrder: Int? = OrderService.defaultMaxDevicesPerOrder
    /// Below this many free bytes on the SQLite database's disk, `/healthz` answers 503 and `doctor` warns; nil: never.
    public var minFreeDiskBytes: Int? = OrderService.defaultMinFreeDiskBytes
    /// With no order type configured, where the development order type's pushes go: a local APNs
    /// (`wallet-orders apns-sandbox`) and its CA file. Without it they wait in the outbox.
    public var developmentAPNS: (url: String, caFile: String?)?
    /// The OTLP/HTTP collector traces go to; nil: no tracing at all (the default).
    public var tracingEndpoint: URL?
    /// What one client may ask and how long it may take: rate limits, the trusted-proxy header, timeouts.
    public var clientLimits = ClientLimits()
    /// What is kept of device logs: per entry, per request, in total.
    public var deviceLogs = DeviceLogLimits()
    /// The names the service answers to in `Host`: any, unless `serve` runs in development, where the open
    /// playground must not be readable by a page under another name (DNS rebinding). Not a setting: it follows from
    /// whether an order type is configured.
    public var hosts = HostPolicy.any

    public init() {}
}
