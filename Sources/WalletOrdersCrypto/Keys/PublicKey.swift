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
