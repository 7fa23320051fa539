import Foundation
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPush

extension OrderTypeConfiguration {
    /// The APNs endpoint this order type pushes to.
    var apnsEndpoint: APNSEndpoint {
        APNSEndpoint(apnsEnvironment, caFile: apnsCA, clientCertificate: apnsCertificate, clientKey: apnsCertificateKey)
    }

    /// This order type's APNs credentials, or nil when none are configured (pushes then wait in the outbox).
    /// Refuses with one sentence when they cannot be used.
    func apnsCredentials(now: @escaping @Sendable () -> Date = Date.init) throws -> APNSCredentials? {
        if let caFile = apnsCA, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError("order type \(identifier): cannot read the APNs CA file \(caFile)")
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
            return .token(try ProviderToken(key: key, keyID: keyID, teamID: team, now: now))
        }
        if let certificateFile = apnsCertificate {
            guard let data = FileManager.default.contents(atPath: certificateFile) else {
                throw ConfigurationError("order type \(identifier): cannot read the APNs certificate \(certificateFile)")
            }
            guard let certificate = try? Certificate(data) else {
                throw ConfigurationError("order type \(identifier): \(certificateFile) is not a PEM or DER certificate")
            }
            if certificate.notAfter < now() {
                throw ConfigurationError(
                    "order type \(identifier): the APNs certificate \(certificateFile) expired on "
                        + RFC3339.format(certificate.notAfter)
                )
            }
            let keyFile = apnsCertificateKey ?? certificateFile
            guard let keyData = FileManager.default.contents(atPath: keyFile), let key = try? PrivateKey(pem: keyData) else {
                throw ConfigurationError("order type \(identifier): cannot read a PEM private key for the APNs certificate from \(keyFile)")
            }
            guard key.matches(certificate) else {
                throw ConfigurationError("order type \(identifier): \(keyFile) is not the private key of the APNs certificate \(certificateFile)")
            }
            return .certificate(certificate)
        }
        return nil
    }

    /// How this order type's pushes travel with `credentials`.
    func pushRoute(_ credentials: APNSCredentials) -> PushRoute {
        switch credentials {
        case .token(let token): PushRoute(transport: CurlPushTransport(endpoint: apnsEndpoint), providerToken: token)
        case .certificate: PushRoute(transport: CurlPushTransport(endpoint: apnsEndpoint), providerToken: nil)
        }
    }
}
