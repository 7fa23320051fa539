import Foundation

/// A certificate chain shaped like Apple's, for local runs and tests: a root, a WWDR-like intermediate, an
/// Order Type ID certificate, and an APNs `.p8` key. Nothing here is trusted by a real device.
public struct DevelopmentChain: Sendable {
    /// The self-signed root, playing the Apple Root CA.
    public let root: Certificate
    /// The intermediate, playing Apple's WWDR certificate.
    public let wwdr: Certificate
    /// The Order Type ID certificate that signs packages.
    public let orderTypeCertificate: Certificate
    /// The private key of `orderTypeCertificate`.
    public let orderTypeKey: PrivateKey
    /// An ES256 key standing in for an APNs auth key.
    public let apnsKey: PrivateKey
    /// The APNs key's 10-character key ID.
    public let apnsKeyID: String

    /// Makes a fresh chain for `orderTypeIdentifier` and `teamIdentifier`, valid from a day before `now` for
    /// `years` years.
    public init(orderTypeIdentifier: String, teamIdentifier: String, now: Date = Date(), years: Int = 2) throws {
        let start = now.addingTimeInterval(-86_400)
        let end = now.addingTimeInterval(Double(years) * 365 * 86_400)
        let rootKey = try PrivateKey.generateRSA()
        let root = try Certificate.issue(
            subject: [("CN", "Wallet Orders Development Root CA"), ("O", "Wallet Orders Development"), ("C", "US")],
            subjectKey: rootKey,
            issuer: nil,
            issuerKey: rootKey,
            role: .authority,
            serial: 1,
            notBefore: start,
            notAfter: end.addingTimeInterval(86_400)
        )
        let wwdrKey = try PrivateKey.generateRSA()
        let wwdr = try Certificate.issue(
            subject: [
                ("CN", "Wallet Orders Development WWDR Certification Authority"),
                ("OU", "G4"), ("O", "Wallet Orders Development"), ("C", "US"),
            ],
            subjectKey: wwdrKey,
            issuer: root,
            issuerKey: rootKey,
            role: .authority,
            serial: 2,
            notBefore: start,
            notAfter: end.addingTimeInterval(3_600)
        )
        let orderTypeKey = try PrivateKey.generateRSA()
        let orderTypeCertificate = try Certificate.issue(
            subject: [
                ("UID", orderTypeIdentifier), ("CN", "Order Type ID: \(orderTypeIdentifier)"),
                ("OU", teamIdentifier), ("O", "Wallet Orders Development"), ("C", "US"),
            ],
            subjectKey: orderTypeKey,
            issuer: wwdr,
            issuerKey: wwdrKey,
            role: .signer,
            serial: 3,
            notBefore: start,
            notAfter: end
        )
        let apnsKey = try PrivateKey.generateP256()
        let publicKey = try apnsKey.publicKeyPEM()
        self.root = root
        self.wwdr = wwdr
        self.orderTypeCertificate = orderTypeCertificate
        self.orderTypeKey = orderTypeKey
        self.apnsKey = apnsKey
        // Apple's key IDs are 10 upper-case alphanumerics; derive one from the key so it is stable per key.
        let digest = DigestAlgorithm.sha256.hexDigest(Data(publicKey.utf8)).uppercased()
        self.apnsKeyID = String(digest.prefix(10))
    }
}
