import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// The Order Type ID certificate, its private key and the WWDR intermediate that issued it.
public struct SigningIdentity: Sendable {
    /// The Order Type ID certificate.
    public let certificate: Certificate
    /// Its private key.
    public let key: PrivateKey
    /// Apple's WWDR intermediate (or the development stand-in) that issued `certificate`.
    public let wwdr: Certificate
    /// Signs manifests as this identity, with the certificates encoded once.
    let signer: CMSSigner
    /// The certificate set every signature carries, deflated once (sync flushed, so more blocks can follow).
    let certificateSetBlocks: [UInt8]?
    /// The SHA-256 of that certificate set: which certificates a `PackageSeal` was made with.
    let signerDigest: [UInt8]

    /// The order type the certificate is for (its subject UID), if it names one.
    public var orderTypeIdentifier: String? { certificate.subjectUserID }
    /// The team that owns the certificate (its subject OU), if it names one.
    public var teamIdentifier: String? { certificate.subjectOrganizationalUnit }

    /// An identity from parts already in memory, checked as `load` checks files.
    public init(
        certificate: Certificate,
        key: PrivateKey,
        wwdr: Certificate,
        orderTypeIdentifier: String? = nil,
        now: Date = Date()
    ) throws {
        self.init(unchecked: certificate, key: key, wwdr: wwdr)
        let names = Names(certificate: "the certificate", key: "the private key", wwdr: "the WWDR certificate")
        if let problem = problems(expecting: orderTypeIdentifier, now: now, names: names).first {
            throw PackageError.signingIdentity(problem)
        }
    }

    /// Loads and checks an identity from files.
    ///
    /// `keyFile` is a PEM private key or a PKCS #12 file; a `.p12` carries its certificate, so `certificateFile`
    /// may then be nil. The password is only passed to OpenSSL. Each problem names the file it is about.
    public static func load(
        certificateFile: String?,
        keyFile: String,
        password: String?,
        wwdrFile: String,
        orderTypeIdentifier: String? = nil,
        now: Date = Date()
    ) throws -> SigningIdentity {
        let checked = check(
            certificateFile: certificateFile,
            keyFile: keyFile,
            password: password,
            wwdrFile: wwdrFile,
            orderTypeIdentifier: orderTypeIdentifier,
            now: now
        )
        if let problem = checked.problems.first { throw PackageError.signingIdentity(problem) }
        return checked.identity!
    }

    /// Loads an identity from files and lists every problem with it, one sentence each, naming the file. The
    /// identity is nil when a file cannot be read at all; with problems it is there but must not sign.
    public static func check(
        certificateFile: String?,
        keyFile: String,
        password: String?,
        wwdrFile: String,
        orderTypeIdentifier: String? = nil,
        now: Date = Date()
    ) -> (identity: SigningIdentity?, problems: [String]) {
        do {
            let identity = try loadUnchecked(
                certificateFile: certificateFile,
                keyFile: keyFile,
                password: password,
                wwdrFile: wwdrFile
            )
            let names = Names(certificate: certificateFile ?? keyFile, key: keyFile, wwdr: wwdrFile)
            return (identity, identity.problems(expecting: orderTypeIdentifier, now: now, names: names))
        } catch {
            return (nil, ["\(error)"])
        }
    }

    private static func loadUnchecked(
        certificateFile: String?,
        keyFile: String,
        password: String?,
        wwdrFile: String
    ) throws -> SigningIdentity {
        let keyData = try read(keyFile, what: "signing key")
        var certificate: Certificate?
        let key: PrivateKey
        do {
            if keyData.starts(with: Array("-----BEGIN".utf8)) || String(decoding: keyData.prefix(4096), as: UTF8.self).contains("-----BEGIN") {
                key = try PrivateKey(pem: keyData, password: password)
                certificate = Certificate.allPEM(keyData).first
            } else {
                let bundle = try PKCS12Bundle(der: keyData, password: password)
                key = bundle.key
                certificate = bundle.certificate
            }
        } catch let error as CryptoError {
            throw PackageError.signingIdentity("\(keyFile): \(error.operation)")
        }
        if let certificateFile {
            let data = try read(certificateFile, what: "signing certificate")
            do {
                certificate = try Certificate(data)
            } catch {
                throw PackageError.signingIdentity("\(certificateFile): not a PEM or DER certificate")
            }
        }
        guard let certificate else {
            throw PackageError.signingIdentity(
                "\(keyFile) holds no certificate: name the Order Type ID certificate file as well"
            )
        }
        let wwdrData = try read(wwdrFile, what: "WWDR certificate")
        guard let wwdr = try? Certificate(wwdrData) else {
            throw PackageError.signingIdentity("\(wwdrFile): not a PEM or DER certificate")
        }
        return SigningIdentity(unchecked: certificate, key: key, wwdr: wwdr)
    }

    private init(unchecked certificate: Certificate, key: PrivateKey, wwdr: Certificate) {
        self.certificate = certificate
        self.key = key
        self.wwdr = wwdr
        signer = CMSSigner(certificate: certificate, key: key, chain: [wwdr])
        certificateSetBlocks = signer.certificateSet.withUnsafeBytes { Deflate.compress($0, effort: .best, final: false) }
        signerDigest = DigestAlgorithm.sha256.digest(signer.certificateSet)
    }

    struct Names {
        let certificate: String
        let key: String
        let wwdr: String
    }

    /// Every reason this identity cannot sign packages for `orderTypeIdentifier` at `now`, one sentence each.
    func problems(expecting orderTypeIdentifier: String?, now: Date, names: Names) -> [String] {
        var problems: [String] = []
        let day = { (date: Date) in RFC3339.format(date) }
        if !key.matches(certificate) {
            problems.append("\(names.key) is not the private key of the certificate in \(names.certificate)")
        }
        if !certificate.isIssued(by: wwdr) {
            problems.append(
                "\(names.certificate) (\(certificate.subjectDescription)) was not issued by the WWDR "
                    + "certificate in \(names.wwdr) (\(wwdr.subjectDescription)); its issuer is \(certificate.issuerDescription)"
            )
        }
        if let identifier = certificate.subjectUserID {
            if let orderTypeIdentifier, identifier != orderTypeIdentifier {
                problems.append("\(names.certificate) is the certificate for \(identifier), not for \(orderTypeIdentifier)")
            }
        } else {
            problems.append("\(names.certificate) has no UID in its subject, so it is not an Order Type ID certificate")
        }
        for (name, cert) in [(names.certificate, certificate), (names.wwdr, wwdr)] {
            if cert.notAfter < now {
                problems.append("\(name) expired on \(day(cert.notAfter))")
            } else if cert.notBefore > now {
                problems.append("\(name) is not valid before \(day(cert.notBefore))")
            }
        }
        return problems
    }

    private static func read(_ path: String, what: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PackageError.signingIdentity("\(path): cannot read the \(what) file")
        }
    }
}
