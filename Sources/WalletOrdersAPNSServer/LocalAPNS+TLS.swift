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
                subject: [("CN", "Local APNs Development CA")], subjectKey: authorityKey, issuer: nil,
                issuerKey: authorityKey, role: .authority, serial: 1, notBefore: start, notAfter: end)
            serverKey = try PrivateKey.generateP256()
            serverCertificate = try Certificate.issue(
                subject: [("CN", hosts.first ?? "localhost")], subjectKey: serverKey, issuer: certificateAuthority,
                issuerKey: authorityKey, role: .server(hosts), serial: 2, notBefore: start, notAfter: end)
        }

        /// The server side's TLS configuration.
        public func serverConfiguration() throws -> TLSConfiguration {
            TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(serverCertificate.pem.utf8), format: .pem))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pkcs8PEM().utf8), format: .pem)))
        }
    }
}
