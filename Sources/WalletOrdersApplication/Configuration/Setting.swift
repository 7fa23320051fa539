import Configuration

/// Every key the configuration reads, as a JSON file names it; the environment names each `WALLET_ORDERS_` and the
/// key in upper snake case (`publicURL` is `WALLET_ORDERS_PUBLIC_URL`). The reader reads through these alone, and a
/// test holds docs/configuration.md to this list.
public enum Setting: String, CaseIterable, Sendable {
    // Where to listen and where the data lives.
    case host, port, database, publicURL, minFreeDiskBytes
    // Who may call.
    case merchantKey, merchantKeys, adminKey, operatorKey
    // The order type, its signing files and template.
    case orderType, orderTypes, teamId, signingCert, signingKey, signingKeyPassword, wwdrCert, template, manifestDigest
    // Its pushes.
    case apnsKey, apnsKeyId, apnsTeamId, apnsCert, apnsCertKey, apnsEnvironment, apnsCa
    // What one client may ask and how long it may take; what is kept of device logs.
    case authFailureLimit, listingLimit, merchantLimit, logLimit, linkLimit, rateLimitClients, trustedProxyHeader
    case headerTimeout, bodyTimeout, idleTimeout, maxConnections, maxConnectionsPerClient, logMaxBytes
    // What devices and the playground may do; where webhooks may go.
    case maxDevicesPerOrder, playground, webhookAllowPrivate
    // Where traces go, when anywhere.
    case tracingEndpoint

    /// Values never logged, and redacted by swift-configuration's own logs. The database URL may hold a password.
    public var isSecret: Bool {
        switch self {
        case .merchantKey, .merchantKeys, .adminKey, .operatorKey, .signingKeyPassword, .database: true
        default: false
        }
    }

    /// The environment variable that sets it: `WALLET_ORDERS_` and the key in upper snake case.
    public var environmentName: String {
        var name = "WALLET_ORDERS_"
        var previous: Character?
        for character in rawValue {
            // A capital after a lower-case letter starts a word: apnsKeyId → APNS_KEY_ID, publicURL → PUBLIC_URL.
            if character.isUppercase, previous?.isLowercase == true { name.append("_") }
            name += character.uppercased()
            previous = character
        }
        return name
    }

    var key: ConfigKey { ConfigKey(rawValue) }
}

extension ConfigReader {
    /// The setting's text; an empty value counts as unset (compose files and shells pass empty variables for
    /// settings left out). A file may hold a number where the environment holds text.
    func text(_ setting: Setting) -> String? {
        if let value = string(forKey: setting.key, isSecret: setting.isSecret) { return value.isEmpty ? nil : value }
        return int(forKey: setting.key).map(String.init)
    }

    /// The setting's list: a JSON array in a file, comma-separated in the environment.
    func texts(_ setting: Setting) -> [String] {
        stringArray(forKey: setting.key, isSecret: setting.isSecret, default: []).filter { !$0.isEmpty }
    }

    /// The settings of the extra order type `name` lists in `orderTypes`: the same keys, under `name`.
    func orderType(named name: String) -> ConfigReader {
        scoped(to: ConfigKey([name]))
    }
}
