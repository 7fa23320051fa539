import WalletOrdersAPNS
import WalletOrdersCrypto

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
