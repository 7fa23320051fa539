import Configuration
import Foundation
import HTTPTypes
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersHTTP

extension ServiceConfiguration {
    /// Reads the configuration from a JSON file (optional) with `WALLET_ORDERS_*` environment variables over it.
    /// The keys are `Setting`'s, each described in docs/configuration.md. With no order type, an https
    /// `apnsEnvironment` (and `apnsCa`) sends the development order type's pushes to a local APNs. A file can
    /// describe more order types: `"orderTypes": ["returns"]` names objects such as
    /// `"returns": {"orderType": "order.com.example.returns", "signingKey": …}` with the same keys.
    public static func load(file: String?, environment: [String: String]) async throws -> ServiceConfiguration {
        try ServiceConfiguration(reader: await reader(file: file, environment: environment))
    }

    /// The reader `load(file:environment:)` reads: the environment's `WALLET_ORDERS_*` variables over the JSON file.
    /// Commands that need only some settings (`package`) read them from it under the same keys.
    public static func reader(file: String?, environment: [String: String]) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = [
            mapped(EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: secrets))
        ]
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
        return ConfigReader(providers: providers)
    }

    /// The signing settings of the main order type as `serve` reads them (file and environment), for `package`,
    /// which signs without serving and so needs no order type identifier (the certificate names it).
    public static func signing(file: String?, environment: [String: String]) async throws -> SigningSettings {
        let reader = try await reader(file: file, environment: environment)
        var settings = SigningSettings()
        settings.certificate = reader.text(.signingCert)
        settings.key = reader.text(.signingKey)
        settings.keyPassword = reader.text(.signingKeyPassword)
        settings.wwdrCertificate = reader.text(.wwdrCert)
        settings.template = reader.text(.template)
        if let digest = reader.text(.manifestDigest) { settings.manifestDigest = try manifestDigest(digest, of: nil) }
        return settings
    }

    /// Variables whose values are secrets: swift-configuration redacts them in its own logs.
    static let secrets = SecretsSpecifier<String, String>.specific(
        Set(Setting.allCases.filter(\.isSecret).map(\.environmentName))
    )

    /// `WALLET_ORDERS_SIGNING_KEY` read as the key `signingKey`, and so on.
    private static func mapped(_ provider: EnvironmentVariablesProvider) -> some ConfigProvider {
        KeyMappingProvider(upstream: provider, keyMapper: { $0.prepending(["walletOrders"]) })
    }

    /// The order type an environment file (`dev.env`, as `keys dev` writes it) describes with `WALLET_ORDERS_*`
    /// lines, read as `serve` reads the environment; nil when it names no order type.
    public static func orderType(environmentFile path: String) async throws -> OrderTypeConfiguration? {
        let provider: EnvironmentVariablesProvider
        do {
            provider = try await EnvironmentVariablesProvider(environmentFilePath: .init(path), secretsSpecifier: secrets)
        } catch {
            throw ConfigurationError("\(path) cannot be read: \(error)")
        }
        return try orderType(ConfigReader(provider: mapped(provider)))
    }

    /// Reads the configuration from `reader`; see `load(file:environment:)` for the keys.
    public init(reader: ConfigReader) throws {
        self.init()
        host = reader.text(.host) ?? host
        if let text = reader.text(.port) {
            guard let number = Int(text) else { throw ConfigurationError("port \(text) is not a TCP port") }
            port = number
        }
        guard (0...65_535).contains(port) else { throw ConfigurationError("port \(port) is not a TCP port") }
        if let location = reader.text(.database) {
            database = try DatabaseLocation(location)
        }
        if let size = reader.text(.minFreeDiskBytes) {
            guard let bytes = Self.byteCount(size) else {
                throw ConfigurationError("minFreeDiskBytes must be a size (bytes, or with KB, MB, GB), or 0 for none, not \(size)")
            }
            minFreeDiskBytes = bytes == 0 ? nil : bytes
        }
        publicURL = reader.text(.publicURL)
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError("publicURL \(publicURL) is not an http or https URL")
            }
        }
        merchantKeys = reader.texts(.merchantKeys)
        if let key = reader.text(.merchantKey) { merchantKeys.append(key) }
        // An empty value (docker-compose's `${WALLET_ORDERS_ADMIN_KEY:-}`) means no admin key, never an empty one.
        adminKey = reader.text(.adminKey)
        operatorKey = reader.text(.operatorKey)
        if let main = try Self.orderType(reader) {
            orderTypes.append(main)
        } else {
            // Development: the order type comes from the development keys, but a template named here is its template.
            developmentTemplate = reader.text(.template)
            if let text = reader.text(.apnsEnvironment), case .custom(let url)? = APNSEnvironment(text) {
                developmentAPNS = (url, reader.text(.apnsCa))
            }
        }
        playground = try Self.flag(reader.text(.playground), key: .playground) ?? false
        webhookAllowPrivate = try Self.flag(reader.text(.webhookAllowPrivate), key: .webhookAllowPrivate) ?? false
        if let text = reader.text(.tracingEndpoint) {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError("tracingEndpoint \(text) is not an http or https URL (an OpenTelemetry collector's OTLP/HTTP)")
            }
            tracingEndpoint = url
        }
        for name in reader.texts(.orderTypes) {
            guard let extra = try Self.orderType(reader.orderType(named: name)) else {
                throw ConfigurationError("orderTypes names \(name), but \(name).orderType is missing")
            }
            orderTypes.append(extra)
        }
        try readClientLimits(reader)
        let identifiers = orderTypes.map(\.identifier)
        if Set(identifiers).count != identifiers.count {
            throw ConfigurationError("an order type is configured twice")
        }
        if playground, !orderTypes.isEmpty, adminKey == nil {
            throw ConfigurationError("playground is true, but the playground needs adminKey to keep it closed")
        }
    }

    private mutating func readClientLimits(_ reader: ConfigReader) throws {
        func number(_ key: Setting) throws -> Int? {
            guard let value = reader.text(key) else { return nil }
            guard let number = Int(value), number >= 0 else {
                throw ConfigurationError("\(key.rawValue) must be a whole number, 0 or more, not \(value)")
            }
            return number
        }
        func seconds(_ key: Setting, _ current: Duration?) throws -> Duration? {
            guard let value = try number(key) else { return current }
            return value == 0 ? nil : .seconds(value)
        }
        for (key, path) in [
            (Setting.authFailureLimit, \ClientLimits.authFailures), (.listingLimit, \ClientLimits.listing),
            (.merchantLimit, \ClientLimits.merchant), (.logLimit, \ClientLimits.log), (.linkLimit, \ClientLimits.links),
        ] {
            if let value = reader.text(key) {
                clientLimits[keyPath: path] = try RateLimit.setting(value, key: key.rawValue)
            }
        }
        if let clients = try number(.rateLimitClients) {
            guard clients >= 100 else { throw ConfigurationError("rateLimitClients must be at least 100, not \(clients)") }
            clientLimits.trackedClients = clients
        }
        if let header = reader.text(.trustedProxyHeader) {
            guard HTTPField.Name(header) != nil else {
                throw ConfigurationError("trustedProxyHeader \(header) is not an HTTP header name")
            }
            clientLimits.trustedProxyHeader = header
        }
        clientLimits.headerTimeout = try seconds(.headerTimeout, clientLimits.headerTimeout)
        clientLimits.bodyTimeout = try seconds(.bodyTimeout, clientLimits.bodyTimeout)
        clientLimits.idleTimeout = try seconds(.idleTimeout, clientLimits.idleTimeout)
        if let connections = try number(.maxConnections) { clientLimits.maxConnections = connections == 0 ? nil : connections }
        if let devices = try number(.maxDevicesPerOrder) { maxDevicesPerOrder = devices == 0 ? nil : devices }
        if let connections = try number(.maxConnectionsPerClient) {
            clientLimits.maxConnectionsPerClient = connections == 0 ? nil : connections
        }
        if let size = reader.text(.logMaxBytes) {
            guard let bytes = Self.byteCount(size), bytes >= 1_024 * 1_024 else {
                throw ConfigurationError("logMaxBytes must be a size of at least 1MB (bytes, or with KB, MB, GB), not \(size)")
            }
            deviceLogs.maxTotalBytes = bytes
        }
    }

    /// `65536`, `64KB`, `64MB`, `1GB` (powers of 1024; `KiB`, `MiB`, `GiB` too) in bytes.
    static func byteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [
            ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20),
            ("GB", 1 << 30), ("B", 1),
        ]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let count = Int(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)) else { return nil }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: factor)
            return overflow || count < 0 ? nil : bytes
        }
        return Int(trimmed).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// A yes-or-no setting: `true` or `false` (a file may hold a JSON boolean, read here as its text).
    static func flag(_ text: String?, key: Setting) throws -> Bool? {
        guard let text else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError("\(key.rawValue) must be true or false, not \(text)")
        }
    }

    /// The `manifestDigest` setting, of the order type `identifier` when one is named.
    private static func manifestDigest(_ text: String, of identifier: String?) throws -> DigestAlgorithm {
        do {
            return try DigestAlgorithm.named(text)
        } catch {
            throw ConfigurationError((identifier.map { "order type \($0): " } ?? "") + "manifestDigest: \(error.description)")
        }
    }

    static func orderType(_ reader: ConfigReader) throws -> OrderTypeConfiguration? {
        guard let identifier = reader.text(.orderType) else { return nil }
        guard let signingKey = reader.text(.signingKey), let wwdr = reader.text(.wwdrCert) else {
            throw ConfigurationError(
                "order type \(identifier) needs signingKey and wwdrCert "
                    + "(WALLET_ORDERS_SIGNING_KEY and WALLET_ORDERS_WWDR_CERT)"
            )
        }
        var type = OrderTypeConfiguration(identifier: identifier, signingKey: signingKey, wwdrCertificate: wwdr)
        type.teamIdentifier = reader.text(.teamId)
        type.signingCertificate = reader.text(.signingCert)
        type.signingKeyPassword = reader.text(.signingKeyPassword)
        type.template = reader.text(.template)
        if let digest = reader.text(.manifestDigest) { type.manifestDigest = try manifestDigest(digest, of: identifier) }
        type.apnsKey = reader.text(.apnsKey)
        type.apnsKeyID = reader.text(.apnsKeyId)
        type.apnsTeamID = reader.text(.apnsTeamId)
        type.apnsCertificate = reader.text(.apnsCert)
        type.apnsCertificateKey = reader.text(.apnsCertKey)
        if let environment = reader.text(.apnsEnvironment) {
            guard let parsed = APNSEnvironment(environment) else {
                throw ConfigurationError(
                    "order type \(identifier): apnsEnvironment must be production, sandbox or an "
                        + "https:// URL, not \(environment)"
                )
            }
            type.apnsEnvironment = parsed
        }
        type.apnsCA = reader.text(.apnsCa)
        return type
    }
}
