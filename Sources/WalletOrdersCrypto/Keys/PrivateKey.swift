import COpenSSL
import Foundation

/// A private key (RSA or elliptic curve).
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after creation; OpenSSL allows one key to be
/// used for signing from several threads at once, each with its own context.
public final class PrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Reads a PEM private key (PKCS #8, PKCS #1 or SEC 1), encrypted or not.
    ///
    /// The password is only ever handed to OpenSSL; without one, an encrypted key fails instead of prompting.
    public convenience init(pem: Data, password: String? = nil) throws {
        let key = try MemoryBIO.reading(pem) { bio in
            // A non-nil user pointer with no callback makes OpenSSL use it as the passphrase, never the terminal.
            (password ?? "").withCString { passphrase in
                PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: passphrase))
            }
        }
        guard let key else {
            let encrypted = String(decoding: pem, as: UTF8.self).contains("ENCRYPTED")
            if encrypted {
                throw CryptoError(
                    password == nil
                        ? "reading the private key: it is encrypted and no password was given"
                        : "reading the private key: the password does not decrypt it"
                )
            }
            throw CryptoError("reading the private key: no PEM private key found")
        }
        self.init(owning: key)
    }

    /// A new RSA key.
    public static func generateRSA(bits: Int = 2048) throws -> PrivateKey {
        guard let key = wo_EVP_RSA_gen(UInt32(bits)) else { throw CryptoError("generating an RSA key") }
        return PrivateKey(owning: key)
    }

    /// A new elliptic-curve key on P-256, the curve APNs tokens (ES256) use.
    public static func generateP256() throws -> PrivateKey {
        guard let key = wo_EVP_EC_gen_P256() else { throw CryptoError("generating a P-256 key") }
        return PrivateKey(owning: key)
    }

    /// The key as unencrypted PKCS #8 PEM (`BEGIN PRIVATE KEY`), the form of Apple's `.p8` files.
    public func pkcs8PEM() throws -> String {
        let data = try MemoryBIO.writing("encoding the private key") { bio in
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The public half as PEM (`BEGIN PUBLIC KEY`).
    public func publicKeyPEM() throws -> String {
        let data = try MemoryBIO.writing("encoding the public key") { PEM_write_bio_PUBKEY($0, pointer) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether this key is the private half of `certificate`'s public key.
    public func matches(_ certificate: Certificate) -> Bool {
        defer { clearOpenSSLErrors() }
        return X509_check_private_key(certificate.pointer, pointer) == 1
    }

    /// Whether this is an elliptic-curve key on P-256.
    public var isP256: Bool { EVPKey.isP256(pointer) }

    /// An ES256 signature of `message` (ECDSA P-256 with SHA-256), as JOSE wants it: `r ‖ s`, 64 bytes.
    public func signES256(_ message: Data) throws -> Data {
        guard isP256 else { throw CryptoError("signing ES256: the key is not a P-256 key") }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError("allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw CryptoError("signing ES256")
        }
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let ok = message.withUnsafeBytes { raw in
            EVP_DigestSign(context, &der, &length, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        guard ok == 1 else { throw CryptoError("signing ES256") }
        return try ECDSASignature.rawFromDER(Array(der.prefix(length)))
    }
}

/// Conversions between the DER form of an ECDSA signature (OpenSSL's) and the raw form (JOSE's).
enum ECDSASignature {
    static func rawFromDER(_ der: [UInt8]) throws -> Data {
        var cursor: UnsafePointer<UInt8>? = nil
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError("decoding an ECDSA signature") }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard BN_bn2binpad(ECDSA_SIG_get0_r(signature), &raw, 32) == 32,
            raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(ECDSA_SIG_get0_s(signature), $0.baseAddress! + 32, 32) }) == 32
        else { throw CryptoError("encoding an ECDSA signature") }
        return Data(raw)
    }

    static func derFromRaw(_ raw: Data) throws -> [UInt8] {
        guard raw.count == 64 else { throw CryptoError("decoding an ES256 signature: it is not 64 bytes") }
        let bytes = [UInt8](raw)
        guard let signature = ECDSA_SIG_new() else { throw CryptoError("allocating an ECDSA signature") }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(bytes, 32, nil)
        let s = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError("decoding an ES256 signature")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { throw CryptoError("encoding an ECDSA signature") }
        defer { wo_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
