import COpenSSL
import Foundation
import Synchronization

/// Makes the detached CMS signatures `CMSSignature.sign` makes, for one certificate and key, with everything but
/// the signed attributes and the signature value encoded once.
///
/// Per signature it hashes the content, encodes the three signed attributes (content type, signing time, message
/// digest) and signs them with the key; the certificates, the signer's issuer and serial number and the algorithm
/// identifiers are bytes ready at hand. For RSA and EC keys the signature is assembled here, byte for byte what
/// OpenSSL's `CMS_sign` writes for the same inputs; other keys go through `CMS_sign` itself. Safe to use from
/// several threads at once.
public final class CMSSigner: Sendable {
    /// A signature in three runs of DER: `head`, then the signer's `certificateSet`, then `tail`.
    ///
    /// The certificate set is the bulk of a signature and the same in every signature one signer makes, so
    /// whatever is done to it (compressing it for a zip, for example) can be done once.
    public struct Signature: Sendable {
        /// Everything before the certificates: the outer headers, the digest algorithm, the content type.
        public let head: [UInt8]
        /// Everything after the certificates: the signer info with its signed attributes and signature value.
        public let tail: [UInt8]
        /// The certificate set between `head` and `tail`, as `CMSSigner.certificateSet`.
        public let certificateSet: Data
        /// The signature value inside `tail`, from which `CMSSigner.signature(over:signingTime:value:)` assembles
        /// the same signature again without the key; nil for a signature made through `CMS_sign` (keys other than
        /// RSA and EC), which that cannot assemble.
        public let value: [UInt8]?

        /// The whole signature, DER.
        public var der: Data {
            var bytes = Data(capacity: head.count + certificateSet.count + tail.count)
            bytes.append(contentsOf: head)
            bytes.append(certificateSet)
            bytes.append(contentsOf: tail)
            return bytes
        }
    }

    /// The certificates every signature carries (the signer's and the chain, in DER `SET OF` order), as they
    /// appear inside each signature: the same bytes every time.
    public let certificateSet: Data

    private let certificate: Certificate
    private let chain: [Certificate]
    private let key: PrivateKey
    /// How signatures are made: assembled here with this signature algorithm identifier, or by `CMS_sign`.
    private let assembly: Assembly?
    private let contexts = Mutex<[SigningContext]>([])

    private struct Assembly: Sendable {
        /// `version`, `sid` (issuer and serial number) and `digestAlgorithm` of the SignerInfo, encoded.
        let signerPrefix: [UInt8]
        /// The AlgorithmIdentifier of the signature value.
        let signatureAlgorithm: [UInt8]
        /// `version`, `digestAlgorithms` and `encapContentInfo` of the SignedData, encoded.
        let signedDataPrefix: [UInt8]
        /// Whether the key is RSA (PKCS #1 v1.5 padding) rather than EC.
        let isRSA: Bool
    }

    /// Idle contexts kept for reuse; more than this many signing at once allocate their own.
    private static let maxIdleContexts = 16

    /// A signer for `certificate` with `key`, carrying `chain` (the WWDR intermediate) in every signature.
    public init(certificate: Certificate, key: PrivateKey, chain: [Certificate]) {
        self.certificate = certificate
        self.chain = chain
        self.key = key
        var certificates: [[UInt8]] = []
        for member in [certificate] + chain {
            let der = [UInt8](member.der)
            // CMS_add1_cert refuses a certificate twice; a set holds it once.
            if !certificates.contains(der) { certificates.append(der) }
        }
        certificateSet = Data(certificates.sorted(by: DER.setOrder).joined())
        assembly = Self.assembly(certificate: certificate, key: key)
    }

    /// Signs `content` detached, with `signingTime` as the signing-time attribute.
    public func sign(_ content: Data, signingTime: Date) throws -> Signature {
        guard let assembly else { return try signWithOpenSSL(content, signingTime: signingTime) }
        let signedAttributes = try Self.signedAttributes(content, signingTime: signingTime)
        // The signature covers the attributes as a SET OF (RFC 5652 5.4); they are carried as [0] IMPLICIT.
        let value = try signDigest(try Self.sha256(DER.element(DER.set, signedAttributes)), rsa: assembly.isRSA)
        return signature(assembly, signedAttributes: signedAttributes, value: value)
    }

    /// The signature `sign` made over `content` at `signingTime` whose signature value was `value`, assembled again
    /// without the key: the same bytes, when all three are what that signature had (a wrong `value` assembles an
    /// invalid signature, so keep it with a digest of what it signed). Nil when this signer's signatures go through
    /// `CMS_sign` (keys other than RSA and EC).
    public func signature(over content: Data, signingTime: Date, value: [UInt8]) throws -> Signature? {
        guard let assembly else { return nil }
        return signature(
            assembly,
            signedAttributes: try Self.signedAttributes(content, signingTime: signingTime),
            value: value
        )
    }

    /// The three signed attributes (content type, signing time, message digest) in DER `SET OF` order.
    private static func signedAttributes(_ content: Data, signingTime: Date) throws -> [UInt8] {
        var attributes = [
            Self.contentTypeAttribute,
            DER.element(DER.sequence, DER.OID.signingTime + DER.element(DER.set, Self.time(signingTime))),
            DER.element(
                DER.sequence,
                DER.OID.messageDigest
                    + DER.element(DER.set, DER.element(DER.octetString, try Self.sha256(content)))
            ),
        ]
        attributes.sort(by: DER.setOrder)
        return Array(attributes.joined())
    }

    /// The signature around `signedAttributes` and their signature `value`.
    private func signature(_ assembly: Assembly, signedAttributes: [UInt8], value: [UInt8]) -> Signature {
        var signerInfo = assembly.signerPrefix
        DER.append(DER.contextZero, signedAttributes, to: &signerInfo)
        signerInfo += assembly.signatureAlgorithm
        DER.append(DER.octetString, value, to: &signerInfo)
        let tail = DER.element(DER.set, DER.element(DER.sequence, signerInfo))

        let certificatesHeader = DER.header(DER.contextZero, length: certificateSet.count)
        let signedDataLength =
            assembly.signedDataPrefix.count + certificatesHeader.count + certificateSet.count
            + tail.count
        let signedDataHeader = DER.header(DER.sequence, length: signedDataLength)
        let explicitHeader = DER.header(DER.contextZero, length: signedDataHeader.count + signedDataLength)
        let contentInfoLength =
            DER.OID.signedData.count + explicitHeader.count + signedDataHeader.count
            + signedDataLength
        var head = DER.header(DER.sequence, length: contentInfoLength)
        head += DER.OID.signedData
        head += explicitHeader
        head += signedDataHeader
        head += assembly.signedDataPrefix
        head += certificatesHeader
        return Signature(head: head, tail: tail, certificateSet: certificateSet, value: value)
    }

    // MARK: - Parts encoded once

    private static let contentTypeAttribute = DER.element(
        DER.sequence,
        DER.OID.contentType + DER.element(DER.set, DER.OID.data)
    )

    private static func assembly(certificate: Certificate, key: PrivateKey) -> Assembly? {
        let isRSA: Bool
        switch EVP_PKEY_get_base_id(key.pointer) {
        case EVP_PKEY_RSA: isRSA = true
        case EVP_PKEY_EC: isRSA = false
        default: return nil
        }
        guard let issuer = encode({ i2d_X509_NAME(X509_get_issuer_name(certificate.pointer), $0) }),
            let serial = encode({ i2d_ASN1_INTEGER(X509_get0_serialNumber(certificate.pointer), $0) })
        else { return nil }
        let version: [UInt8] = [DER.integer, 0x01, 0x01]
        return Assembly(
            signerPrefix: version + DER.element(DER.sequence, issuer + serial) + DER.OID.sha256Algorithm,
            signatureAlgorithm: isRSA ? DER.OID.rsaEncryptionAlgorithm : DER.OID.ecdsaWithSHA256Algorithm,
            signedDataPrefix: version + DER.element(DER.set, DER.OID.sha256Algorithm)
                + DER.element(DER.sequence, DER.OID.data),
            isRSA: isRSA
        )
    }

    /// The bytes an OpenSSL `i2d_…` function writes, or nil when it fails.
    private static func encode(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = i2d(nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        return written == length ? bytes : nil
    }

    // MARK: - Per signature

    /// The signing-time value as OpenSSL's `ASN1_TIME_set` encodes it: UTCTime from 1950 to 2049, GeneralizedTime
    /// outside (RFC 5280 4.1.2.5), to the second.
    static func time(_ date: Date) -> [UInt8] {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        let isUTCTime = (1950...2049).contains(year)
        var text = isUTCTime ? twoDigits(year % 100) : String(format: "%04d", year)
        for field in [parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec] {
            text += twoDigits(Int(field))
        }
        return DER.element(isUTCTime ? DER.utcTime : DER.generalizedTime, Array((text + "Z").utf8))
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func sha256<Bytes: ContiguousBytes>(_ bytes: Bytes) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(raw.baseAddress, raw.count, out.baseAddress, nil, EVP_sha256(), nil)
            }
        }
        guard ok == 1 else { throw CryptoError("computing a SHA-256 digest") }
        return digest
    }

    /// The signature value over a SHA-256 `digest`: PKCS #1 v1.5 (with the DigestInfo) for RSA, DER ECDSA for EC.
    private func signDigest(_ digest: [UInt8], rsa: Bool) throws -> [UInt8] {
        let context = try contexts.withLock { $0.popLast() } ?? SigningContext(key: key, rsa: rsa)
        var length = 0
        guard EVP_PKEY_sign(context.pointer, nil, &length, digest, digest.count) == 1 else {
            throw CryptoError("signing the manifest")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context.pointer, &signature, &length, digest, digest.count) == 1 else {
            throw CryptoError("signing the manifest")
        }
        contexts.withLock { idle in
            if idle.count < Self.maxIdleContexts { idle.append(context) }
        }
        return Array(signature.prefix(length))
    }

    /// The same signature through `CMS_sign`, for keys this type does not assemble signatures for.
    private func signWithOpenSSL(_ content: Data, signingTime: Date) throws -> Signature {
        let der = try CMSSignature.sign(
            content,
            certificate: certificate,
            key: key,
            chain: chain,
            signingTime: signingTime
        )
        guard let range = der.range(of: certificateSet) else {
            throw CryptoError("signing: the signature does not carry the certificates as expected")
        }
        return Signature(
            head: Array(der[..<range.lowerBound]),
            tail: Array(der[range.upperBound...]),
            certificateSet: certificateSet,
            value: nil
        )
    }
}

/// An `EVP_PKEY_CTX` set up to sign SHA-256 digests with one key.
///
/// `@unchecked Sendable`: a context is used by one thread at a time; `CMSSigner` takes it out of its pool under a
/// lock, signs with it and puts it back, so no two threads ever hold the same one. The key it refers to is shared,
/// which OpenSSL allows for signing (an `EVP_PKEY` is not modified by signing; RSA blinding takes its own lock).
private final class SigningContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(key: PrivateKey, rsa: Bool) throws {
        guard let pointer = EVP_PKEY_CTX_new(key.pointer, nil) else { throw CryptoError("allocating a signing context") }
        self.pointer = pointer
        guard EVP_PKEY_sign_init(pointer) == 1,
            !rsa || EVP_PKEY_CTX_set_rsa_padding(pointer, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(pointer, EVP_sha256()) == 1
        else { throw CryptoError("setting up a signing context") }
    }

    deinit { EVP_PKEY_CTX_free(pointer) }
}
