import Configuration
import Foundation

extension ServiceConfiguration {
    /// Reads the configuration from a JSON file (optional) with `WALLET_ORDERS_*` environment variables over it.
    ///
    /// Keys, with their environment names: `host` (`WALLET_ORDERS_HOST`), `port`, `database`, `publicURL`
    /// (`WALLET_ORDERS_PUBLIC_URL`), `merchantKey`, `merchantKeys` (comma-separated in the environment), `adminKey`,
    /// and for the main order type `orderType`, `teamId`, `signingCert`, `signingKey`, `signingKeyPassword`,
    /// `wwdrCert`, `template`, `manifestDigest`, `apnsKey`, `apnsKeyId`, `apnsTeamId` (or `apnsCert` and `apnsCertKey`),
    /// `apnsEnvironment`, `apnsCa`. With no order type, an https `apnsEnvironment` (and `apnsCa`) sends the
    /// development order type's pushes to a local APNs.
    /// A file can describe more order types: `"orderTypes": ["returns"]` names objects such as
    /// `"returns": {"orderType": "order.com.example.returns", "signingKey": …}` with the same keys.
    public static func load(file: String?, environment: [String: String]) async throws -> ServiceConfiguration {
        let environmentProvider = KeyMappingProvider(
            upstream: EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific([
                    "WALLET_ORDERS_MERCHANT_KEY", "WALLET_ORDERS_MERCHANT_KEYS", "WALLET_ORDERS_ADMIN_KEY",
                    "WALLET_ORDERS_SIGNING_KEY_PASSWORD",
                ])),
            keyMapper: { $0.prepending(["walletOrders"]) })
        var providers: [any ConfigProvider] = [environmentProvider]
        if let file {
            guard FileManager.default.fileExists(atPath: file) else {
                throw ConfigurationError("the configuration file \(file) does not exist")
            }
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(file)))
            } catch {
                throw ConfigurationError("the configuration file \(file) is not a readable JSON object: \(error)")
            }
        }
        return try ServiceConfiguration(reader: ConfigReader(providers: providers))
    }

    /// Reads the configuration from `reader`; see `load(file:environment:)` for the keys.
    public init(reader: ConfigReader) throws {
        self.init()
        host = reader.string(forKey: "host", default: host)
        port = reader.int(forKey: "port", default: port)
        guard (0...65_535).contains(port) else { throw ConfigurationError("port \(port) is not a TCP port") }
        databasePath = reader.string(forKey: "database", default: databasePath)
        publicURL = reader.string(forKey: "publicURL")
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError("publicURL \(publicURL) is not an http or https URL")
            }
        }
        merchantKeys = reader.stringArray(forKey: "merchantKeys", isSecret: true, default: [])
        if let key = reader.string(forKey: "merchantKey", isSecret: true) { merchantKeys.append(key) }
        merchantKeys = merchantKeys.filter { !$0.isEmpty }
        if merchantKeys.contains(where: { $0.count < 16 }) {
            throw ConfigurationError("a merchant key must be at least 16 characters long")
        }
        // An empty value (docker-compose's `${WALLET_ORDERS_ADMIN_KEY:-}`) means no admin key, never an empty one.
        adminKey = reader.string(forKey: "adminKey", isSecret: true).flatMap { $0.isEmpty ? nil : $0 }
        if let adminKey, adminKey.count < 16 {
            throw ConfigurationError("the admin key must be at least 16 characters long")
        }
        if let main = try Self.orderType(reader) {
            orderTypes.append(main)
        } else if let url = reader.string(forKey: "apnsEnvironment"), url.lowercased().hasPrefix("https://") {
            developmentAPNS = (url, reader.string(forKey: "apnsCa"))
        }
        for name in reader.stringArray(forKey: "orderTypes", default: []) {
            guard let extra = try Self.orderType(reader.scoped(to: ConfigKey([name]))) else {
                throw ConfigurationError("orderTypes names \(name), but \(name).orderType is missing")
            }
            orderTypes.append(extra)
        }
        let identifiers = orderTypes.map(\.identifier)
        if Set(identifiers).count != identifiers.count {
            throw ConfigurationError("an order type is configured twice")
        }
    }

    private static func orderType(_ reader: ConfigReader) throws -> OrderTypeConfiguration? {
        // An empty value counts as unset: compose files and shells pass empty variables for settings left out.
        func value(_ key: String, secret: Bool = false) -> String? {
            reader.string(forKey: ConfigKey(key), isSecret: secret).flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let identifier = value("orderType") else { return nil }
        guard let signingKey = value("signingKey"), let wwdr = value("wwdrCert") else {
            throw ConfigurationError("order type \(identifier) needs signingKey and wwdrCert "
                + "(WALLET_ORDERS_SIGNING_KEY and WALLET_ORDERS_WWDR_CERT)")
        }
        var type = OrderTypeConfiguration(identifier: identifier, signingKey: signingKey, wwdrCertificate: wwdr)
        type.teamIdentifier = value("teamId")
        type.signingCertificate = value("signingCert")
        type.signingKeyPassword = value("signingKeyPassword", secret: true)
        type.template = value("template")
        type.manifestDigest = value("manifestDigest") ?? "sha256"
        type.apnsKey = value("apnsKey")
        type.apnsKeyID = value("apnsKeyId")
        type.apnsTeamID = value("apnsTeamId")
        type.apnsCertificate = value("apnsCert")
        type.apnsCertificateKey = value("apnsCertKey")
        type.apnsEnvironment = value("apnsEnvironment") ?? "production"
        type.apnsCA = value("apnsCa")
        return type
    }
}
