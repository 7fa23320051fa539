import Foundation
import WalletOrdersCrypto
import WalletOrdersPostgres
import WalletOrdersPush
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
    /// The bearer key for `/admin`, if any.
    public var adminKey: String?
    /// The order types this service signs and serves.
    public var orderTypes: [OrderTypeConfiguration] = []
    /// With no order type configured, where the development order type's pushes go: a local APNs
    /// (`wallet-orders apns-sandbox`) and its CA file. Without it they wait in the outbox.
    public var developmentAPNS: (url: String, caFile: String?)?
    /// What one client may ask and how long it may take: rate limits, the trusted-proxy header, timeouts.
    public var clientLimits = ClientLimits()
    /// What is kept of device logs: per entry, per request, in total.
    public var deviceLogs = DeviceLogLimits()

    public init() {}
}

/// One order type: its identifier, signing material, template and push credentials.
public struct OrderTypeConfiguration: Sendable {
    /// The Order Type ID (`order.com.example.shop`).
    public var identifier: String
    public var teamIdentifier: String?
    /// The Order Type ID certificate (PEM or DER); may be nil when `signingKey` is a `.p12` holding it.
    public var signingCertificate: String?
    /// The private key: PEM, or PKCS #12.
    public var signingKey: String
    /// The key's password. Never logged.
    public var signingKeyPassword: String?
    /// The WWDR intermediate that issued the certificate.
    public var wwdrCertificate: String
    /// The template folder.
    public var template: String?
    /// The digest `manifest.json` uses: SHA-256 (Apple's documented choice) or SHA-1.
    public var manifestDigest = DigestAlgorithm.sha256
    /// APNs token authentication: the `.p8` key file, its key ID, the team ID.
    public var apnsKey: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    /// APNs certificate authentication instead: a TLS client certificate and its key (PEM).
    public var apnsCertificate: String?
    public var apnsCertificateKey: String?
    /// Which APNs the order type's pushes go to.
    public var apnsEnvironment = APNSEnvironment.production
    /// A CA file to trust for a custom APNs base URL.
    public var apnsCA: String?

    public init(identifier: String, signingKey: String, wwdrCertificate: String) {
        self.identifier = identifier
        self.signingKey = signingKey
        self.wwdrCertificate = wwdrCertificate
    }
}

/// Where the service keeps its data.
public enum DatabaseLocation: Sendable, CustomStringConvertible {
    /// One SQLite file: the embedded default, for one instance.
    case sqlite(path: String)
    /// A PostgreSQL database several instances share.
    case postgres(PostgresURL)

    /// A `postgres://` (or `postgresql://`) URL, or else a file path.
    public init(_ text: String) throws {
        guard PostgresURL.isPostgres(text) else {
            self = .sqlite(path: text)
            return
        }
        do {
            self = .postgres(try PostgresURL(text))
        } catch let error as PostgresURLError {
            throw ConfigurationError("database: \(error.description)")
        }
    }

    /// The file path or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }
}

/// A configuration that cannot be used, with a sentence that says why.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
