import COpenSSL
import Foundation

/// A public key, for checking signatures made by someone else's private key.
///
/// `@unchecked Sendable`: the wrapped `EVP_PKEY` is never mutated after it is read.
public final class PublicKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`).
    public convenience init(pem: Data) throws {
        let key = try MemoryBIO.reading(pem) { PEM_read_bio_PUBKEY($0, nil, nil, nil) }
        guard let key else { throw CryptoError("reading a public key: no PEM public key found") }
        self.init(owning: key)
    }

    /// Reads a DER SubjectPublicKeyInfo (RFC 5280), the form a JWK's coordinates are put into.
    public convenience init(der: Data) throws {
        var key: OpaquePointer?
        der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress
            key = d2i_PUBKEY(nil, &cursor, raw.count)
        }
        guard let key else { throw CryptoError("reading a public key: not a DER SubjectPublicKeyInfo") }
        self.init(owning: key)
    }

    /// Whether this is an elliptic-curve key on P-256 (ES256).
    public var isP256: Bool { EVPKey.isP256(pointer) }

    /// Whether this is an Ed25519 key.
    public var isEd25519: Bool { EVP_PKEY_get_base_id(pointer) == EVP_PKEY_ED25519 }

    /// Whether `signature` (64 bytes, RFC 8032) is an Ed25519 signature of `message` by this key.
    public func isValidEd25519(_ signature: Data, for message: Data) -> Bool {
        defer { clearOpenSSLErrors() }
        guard isEd25519, signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes inside the signature scheme: no digest is named, and the message goes in one call.
        guard EVP_DigestVerifyInit(context, nil, nil, nil, pointer) == 1 else { return false }
        let bytes = [UInt8](signature)
        return message.withUnsafeBytes { raw in
            EVP_DigestVerify(context, bytes, bytes.count, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        } == 1
    }

    /// Whether `signature` (raw `r ‖ s`) is an ES256 signature of `message` by this key.
    public func isValidES256(_ signature: Data, for message: Data) -> Bool {
        defer { clearOpenSSLErrors() }
        guard let der = try? ECDSASignature.derFromRaw(signature),
            let context = EVP_MD_CTX_new()
        else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return message.withUnsafeBytes { raw in
            EVP_DigestVerify(context, der, der.count, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        } == 1
    }
}
