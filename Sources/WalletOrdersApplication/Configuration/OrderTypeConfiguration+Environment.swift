extension OrderTypeConfiguration {
    /// The `WALLET_ORDERS_*` variables that describe this order type as `serve` reads them (the key's password
    /// left out): what `keys dev` writes to dev.env, and what a test hands to a server it starts.
    public var environment: [String: String] {
        let settings: [(String, String?)] = [
            ("ORDER_TYPE", identifier), ("TEAM_ID", teamIdentifier), ("SIGNING_CERT", signingCertificate),
            ("SIGNING_KEY", signingKey), ("WWDR_CERT", wwdrCertificate), ("TEMPLATE", template),
            ("MANIFEST_DIGEST", manifestDigest == .sha256 ? nil : manifestDigest.rawValue),
            ("APNS_KEY", apnsKey), ("APNS_KEY_ID", apnsKeyID), ("APNS_TEAM_ID", apnsTeamID),
            ("APNS_CERT", apnsCertificate), ("APNS_CERT_KEY", apnsCertificateKey),
            ("APNS_ENVIRONMENT", apnsEnvironment == .production ? nil : apnsEnvironment.description),
            ("APNS_CA", apnsCA),
        ]
        var variables: [String: String] = [:]
        for case let (name, value?) in settings { variables["WALLET_ORDERS_" + name] = value }
        return variables
    }
}
