import Foundation
import NIOSSL
import WalletOrdersCrypto

extension LocalAPNS {
    /// A TLS identity for the stand-in: a CA (for the client to trust) and a server certificate it issued for
    /// `localhost` and `127.0.0.1`.
    public struct TLSIdentity: Sendable {
        public let certificateAuthority: Certificate
        public let serverCertificate: Certificate
        public let serverKey: PrivateKey

        public init(hosts: [String] = ["localhost", "127.0.0.1"]) throws {
            let start = Date().addingTimeInterval(-3_600)
            let end = Date().addingTimeInterval(365 * 86_400)
            let authorityKey = try PrivateKey.generateP256()
            certificateAuthority = try Certificate.issue(
                subject: [("CN", "Local APNs Development CA")],
                subjectKey: authorityKey,
                issuer: nil,
                issuerKey: authorityKey,
                role: .authority,
                serial: 1,
                notBefore: start,
                notAfter: end
            )
            serverKey = try PrivateKey.generateP256()
            serverCertificate = try Certificate.issue(
                subject: [("CN", hosts.first ?? "localhost")],
                subjectKey: serverKey,
                issuer: certificateAuthority,
                issuerKey: authorityKey,
                role: .server(hosts),
                serial: 2,
                notBefore: start,
                notAfter: end
            )
        }

        /// The identity kept in `folder` (`local-apns-ca.pem`, `local-apns.pem`, `local-apns.key`), made and written
        /// there first when it is missing, broken or within a day of expiring: a service that trusts the CA file
        /// keeps trusting a restarted stand-in.
        public init(folder: URL) throws {
            let files = (
                ca: folder.appendingPathComponent("local-apns-ca.pem"),
                certificate: folder.appendingPathComponent("local-apns.pem"),
                key: folder.appendingPathComponent("local-apns.key")
            )
            if let authority = try? Certificate(Data(contentsOf: files.ca)),
                let certificate = try? Certificate(Data(contentsOf: files.certificate)),
                let key = try? PrivateKey(pem: Data(contentsOf: files.key)),
                key.matches(certificate), certificate.isIssued(by: authority),
                certificate.notAfter > Date().addingTimeInterval(86_400)
            {
                self.init(certificateAuthority: authority, serverCertificate: certificate, serverKey: key)
                return
            }
            self = try TLSIdentity()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(serverKey.pkcs8PEM().utf8).write(to: files.key, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.key.path)
            try Data(serverCertificate.pem.utf8).write(to: files.certificate, options: .atomic)
            try Data(certificateAuthority.pem.utf8).write(to: files.ca, options: .atomic)
        }

        private init(certificateAuthority: Certificate, serverCertificate: Certificate, serverKey: PrivateKey) {
            self.certificateAuthority = certificateAuthority
            self.serverCertificate = serverCertificate
            self.serverKey = serverKey
        }

        /// The CA file `init(folder:)` keeps in `folder`, for clients to trust.
        public static func certificateAuthorityFile(in folder: URL) -> URL {
            folder.appendingPathComponent("local-apns-ca.pem")
        }

        /// The server side's TLS configuration.
        public func serverConfiguration() throws -> TLSConfiguration {
            TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(serverCertificate.pem.utf8), format: .pem))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pkcs8PEM().utf8), format: .pem))
            )
        }
    }
}
