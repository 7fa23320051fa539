import Foundation
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersPackage
import WalletOrdersTesting

/// The keys the faulty web service works with: a chain shaped like Apple's (a root, a WWDR-like intermediate, the
/// Order Type ID certificate, and a certificate of another order type under the same intermediate), APNs keys, and a
/// TLS identity for its https. Made once per test process: RSA keys are slow to make.
final class TestChain: Sendable {
    /// The order type of every faulty service: the shared development keys' too, whose chain ends at another root.
    static let orderType = DevelopmentKeys.orderType
    static let otherOrderType = "order.com.example.other"
    static let apnsKeyID = "KIT0000001"
    static let teamID = "KITTEAM001"

    let root: Certificate
    let wwdr: Certificate
    /// The Order Type ID certificate for `orderType`, and its key.
    let signer: Certificate
    let signerKey: PrivateKey
    /// A certificate for `otherOrderType` under the same WWDR, and its key.
    let otherSigner: Certificate
    let otherSignerKey: PrivateKey
    let identity: SigningIdentity
    /// The order type's APNs key, and a key of nobody's.
    let apnsKey: PrivateKey
    let strangerAPNSKey: PrivateKey
    /// The faulty service's https: a CA and a certificate for 127.0.0.1 and localhost.
    let tls: LocalAPNS.TLSIdentity
    /// Files the commands read: the root, the TLS CA.
    let folder: TemporaryDirectory

    static let shared: TestChain = {
        do {
            return try TestChain()
        } catch {
            fatalError("cannot make the test chain: \(error)")
        }
    }()

    private init() throws {
        let start = Date().addingTimeInterval(-86_400)
        let end = Date().addingTimeInterval(365 * 86_400)
        let rootKey = try PrivateKey.generateRSA()
        root = try Certificate.issue(
            subject: [("CN", "Conformance Test Root CA"), ("O", "Conformance Tests")],
            subjectKey: rootKey,
            issuer: nil,
            issuerKey: rootKey,
            role: .authority,
            serial: 1,
            notBefore: start,
            notAfter: end
        )
        let wwdrKey = try PrivateKey.generateRSA()
        let wwdr = try Certificate.issue(
            subject: [("CN", "Conformance Test WWDR"), ("OU", "G4"), ("O", "Conformance Tests")],
            subjectKey: wwdrKey,
            issuer: root,
            issuerKey: rootKey,
            role: .authority,
            serial: 2,
            notBefore: start,
            notAfter: end
        )
        self.wwdr = wwdr
        func orderTypeCertificate(_ type: String, key: PrivateKey, serial: Int) throws -> Certificate {
            try Certificate.issue(
                subject: [("UID", type), ("CN", "Order Type ID: \(type)"), ("OU", Self.teamID), ("O", "Conformance Tests")],
                subjectKey: key,
                issuer: wwdr,
                issuerKey: wwdrKey,
                role: .signer,
                serial: serial,
                notBefore: start,
                notAfter: end
            )
        }
        signerKey = try PrivateKey.generateRSA()
        signer = try orderTypeCertificate(Self.orderType, key: signerKey, serial: 3)
        otherSignerKey = try PrivateKey.generateRSA()
        otherSigner = try orderTypeCertificate(Self.otherOrderType, key: otherSignerKey, serial: 4)
        identity = try SigningIdentity(certificate: signer, key: signerKey, wwdr: wwdr, orderTypeIdentifier: Self.orderType)
        apnsKey = try PrivateKey.generateP256()
        strangerAPNSKey = try PrivateKey.generateP256()
        tls = try LocalAPNS.TLSIdentity()
        folder = try TemporaryDirectory("conformance-chain")
        try folder.write("root-ca.pem", Data(root.pem.utf8))
        try folder.write("https-ca.pem", Data(tls.certificateAuthority.pem.utf8))
        try folder.write("apns-public.pem", Data(apnsKey.publicKeyPEM().utf8))
        try folder.write("signer-chain.pem", Data((signer.pem + wwdr.pem).utf8))
        try folder.write("signer.key", Data(signerKey.pkcs8PEM().utf8))
        try folder.write("other-signer-chain.pem", Data((otherSigner.pem + wwdr.pem).utf8))
        try folder.write("other-signer.key", Data(otherSignerKey.pkcs8PEM().utf8))
    }

    var rootPath: String { folder.path("root-ca.pem") }
    var httpsCAPath: String { folder.path("https-ca.pem") }

    /// The public half of the order type's APNs key.
    func apnsPublicKey() throws -> PublicKey { try PublicKey(pem: Data(apnsKey.publicKeyPEM().utf8)) }
}
