import COpenSSL
import Foundation

/// The contents of a PKCS #12 file (`.p12`), as exported from Keychain Access.
public struct PKCS12Bundle: Sendable {
    /// The private key.
    public let key: PrivateKey
    /// The certificate that goes with the key.
    public let certificate: Certificate
    /// Other certificates the file carries (an intermediate, sometimes).
    public let otherCertificates: [Certificate]

    /// Reads a PKCS #12 file; the password is handed only to OpenSSL.
    public init(der: Data, password: String?) throws {
        LegacyAlgorithms.enable()
        let p12 = try MemoryBIO.reading(der) { d2i_PKCS12_bio($0, nil) }
        guard let p12 else { throw CryptoError("reading a PKCS #12 file: the bytes are not PKCS #12") }
        defer { PKCS12_free(p12) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        guard PKCS12_parse(p12, password ?? "", &key, &certificate, &others) == 1 else {
            throw CryptoError(
                password == nil
                    ? "reading a PKCS #12 file: it needs a password and none was given"
                    : "reading a PKCS #12 file: the password does not open it"
            )
        }
        defer { if let others { wo_sk_X509_pop_free(others) } }
        guard let key, let certificate else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            throw CryptoError("reading a PKCS #12 file: it lacks a private key or its certificate")
        }
        self.key = PrivateKey(owning: key)
        self.certificate = Certificate(owning: certificate)
        var extra: [Certificate] = []
        if let others {
            for index in 0..<wo_sk_X509_num(others) {
                if let x509 = wo_sk_X509_value(others, index) { extra.append(Certificate(retaining: x509)) }
            }
        }
        self.otherCertificates = extra
    }
}

/// Loads OpenSSL's legacy provider once, for `.p12` files still encrypted with RC2 or 3DES (older Keychain exports).
enum LegacyAlgorithms {
    private static let loaded: Bool = {
        // Loading any provider explicitly turns off the implicit default one, so load both.
        let defaultProvider = OSSL_PROVIDER_load(nil, "default")
        let legacyProvider = OSSL_PROVIDER_load(nil, "legacy")
        clearOpenSSLErrors()
        return defaultProvider != nil && legacyProvider != nil
    }()

    static func enable() { _ = loaded }
}
