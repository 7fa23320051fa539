import Foundation
import WalletOrdersCrypto
import WalletOrdersPush

extension OrderTypeConfiguration {
    /// The APNs endpoint this order type pushes to.
    var apnsEndpoint: APNSEndpoint {
        let base = switch apnsEnvironment {
        case "production": APNSEndpoint.production
        case "sandbox": APNSEndpoint.sandbox
        default: apnsEnvironment
        }
        return APNSEndpoint(baseURL: base, caFile: apnsCA, clientCertificate: apnsCertificate, clientKey: apnsCertificateKey)
    }

    /// How this order type's pushes travel, or nil when no APNs credentials are configured (pushes then wait in
    /// the outbox). Refuses with one sentence when the credentials cannot be used.
    func pushRoute(now: @escaping @Sendable () -> Date = Date.init) throws -> PushRoute? {
        let environment = apnsEnvironment
        guard ["production", "sandbox"].contains(environment) || environment.lowercased().hasPrefix("https://") else {
            throw ConfigurationError("order type \(identifier): apnsEnvironment must be production, sandbox or an https:// URL, not \(environment)")
        }
        if let keyFile = apnsKey {
            guard let data = FileManager.default.contents(atPath: keyFile) else {
                throw ConfigurationError("order type \(identifier): cannot read the APNs key \(keyFile)")
            }
            let key: PrivateKey
            do {
                key = try PrivateKey(pem: data)
            } catch {
                throw ConfigurationError("order type \(identifier): \(keyFile) is not a PEM (.p8) private key")
            }
            guard key.isP256 else {
                throw ConfigurationError("order type \(identifier): \(keyFile) is not a P-256 key, so it cannot sign APNs tokens (ES256)")
            }
            guard let keyID = apnsKeyID, !keyID.isEmpty else {
                throw ConfigurationError("order type \(identifier): apnsKeyId (WALLET_ORDERS_APNS_KEY_ID) is required with apnsKey")
            }
            guard let team = apnsTeamID ?? teamIdentifier, !team.isEmpty else {
                throw ConfigurationError("order type \(identifier): apnsTeamId (WALLET_ORDERS_APNS_TEAM_ID) is required with apnsKey")
            }
            let token = try ProviderToken(key: key, keyID: keyID, teamID: team, now: now)
            return PushRoute(transport: CurlPushTransport(endpoint: apnsEndpoint), providerToken: token)
        }
        if let certificate = apnsCertificate {
            guard FileManager.default.isReadableFile(atPath: certificate) else {
                throw ConfigurationError("order type \(identifier): cannot read the APNs certificate \(certificate)")
            }
            return PushRoute(transport: CurlPushTransport(endpoint: apnsEndpoint), providerToken: nil)
        }
        return nil
    }
}
