import COpenSSL
import Foundation

/// Detached CMS (PKCS #7) signatures in DER, as Wallet packages carry them.
public enum CMSSignature {
    /// Signs `content` detached: SHA-256, the signer's certificate plus `chain` in the certificate set, and
    /// `signingTime` as the signing-time attribute (so the same inputs give the same bytes with an RSA key).
    public static func sign(
        _ content: Data,
        certificate: Certificate,
        key: PrivateKey,
        chain: [Certificate],
        signingTime: Date
    ) throws -> Data {
        let flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_PARTIAL | CMS_NOSMIMECAP)
        guard let cms = CMS_sign(nil, nil, nil, nil, flags) else { throw CryptoError("starting a CMS signature") }
        defer { CMS_ContentInfo_free(cms) }
        guard let signer = CMS_add1_signer(cms, certificate.pointer, key.pointer, EVP_sha256(), flags) else {
            throw CryptoError("adding the signer to the CMS signature")
        }
        for extra in chain where CMS_add1_cert(cms, extra.pointer) != 1 {
            throw CryptoError("adding \(extra.subjectDescription) to the CMS signature")
        }
        guard let time = ASN1_TIME_set(nil, time_t(signingTime.timeIntervalSince1970.rounded(.down))) else {
            throw CryptoError("encoding the signing time")
        }
        defer { ASN1_TIME_free(time) }
        // OpenSSL adds the current time only when no signing-time attribute is present.
        guard CMS_signed_add1_attr_by_NID(signer, NID_pkcs9_signingTime, time.pointee.type, time, -1) == 1 else {
            throw CryptoError("adding the signing time")
        }
        let finished = try MemoryBIO.reading(content) { bio in CMS_final(cms, bio, nil, flags) }
        guard finished == 1 else { throw CryptoError("signing") }
        return try MemoryBIO.writing("encoding the CMS signature") { i2d_CMS_bio($0, cms) }
    }

    /// Checks a detached DER signature over `content`.
    ///
    /// With `trustedRoots`, the signer's certificate must chain to one of them through the certificates the
    /// signature carries; with none, only the signature itself is checked.
    public static func verify(
        _ signature: Data,
        content: Data,
        trustedRoots: [Certificate]?
    ) throws -> CMSSignedInfo {
        let cms = try MemoryBIO.reading(signature) { d2i_CMS_bio($0, nil) }
        guard let cms else { throw CryptoError("reading the signature: it is not DER CMS") }
        defer { CMS_ContentInfo_free(cms) }
        guard let store = X509_STORE_new() else { throw CryptoError("allocating a certificate store") }
        defer { X509_STORE_free(store) }
        var flags = Int32(CMS_BINARY)
        if let trustedRoots {
            for root in trustedRoots { X509_STORE_add_cert(store, root.pointer) }
            // Apple's certificates carry no S/MIME key usage; `openssl cms -verify -purpose any` does the same.
            X509_STORE_set_purpose(store, X509_PURPOSE_ANY)
        } else {
            flags |= Int32(CMS_NO_SIGNER_CERT_VERIFY)
        }
        let verified = try MemoryBIO.reading(content) { bio in
            CMS_verify(cms, nil, store, bio, nil, UInt32(flags))
        }
        guard verified == 1 else {
            throw CryptoError(
                trustedRoots == nil
                    ? "checking the signature: it does not match the signed bytes"
                    : "checking the signature: it does not match the signed bytes or does not chain to the trusted root"
            )
        }
        return CMSSignedInfo(cms)
    }
}

/// What a verified CMS signature says about itself.
public struct CMSSignedInfo: Sendable {
    /// The certificates of the signers.
    public let signers: [Certificate]
    /// Every certificate in the signature's certificate set.
    public let certificates: [Certificate]
    /// The first signer's signing-time attribute, if present.
    public let signingTime: Date?

    init(_ cms: OpaquePointer) {
        var signers: [Certificate] = []
        if let stack = CMS_get0_signers(cms) {
            for index in 0..<wo_sk_X509_num(stack) {
                if let x509 = wo_sk_X509_value(stack, index) { signers.append(Certificate(retaining: x509)) }
            }
            wo_sk_X509_free(stack)
        }
        var certificates: [Certificate] = []
        if let stack = CMS_get1_certs(cms) {
            for index in 0..<wo_sk_X509_num(stack) {
                if let x509 = wo_sk_X509_value(stack, index) { certificates.append(Certificate(retaining: x509)) }
            }
            wo_sk_X509_pop_free(stack)
        }
        var signingTime: Date?
        if let infos = CMS_get0_SignerInfos(cms), wo_sk_CMS_SignerInfo_num(infos) > 0,
            let info = wo_sk_CMS_SignerInfo_value(infos, 0)
        {
            let index = CMS_signed_get_attr_by_NID(info, NID_pkcs9_signingTime, -1)
            if index >= 0, let attribute = CMS_signed_get_attr(info, index) {
                for type in [V_ASN1_UTCTIME, V_ASN1_GENERALIZEDTIME] {
                    if let value = X509_ATTRIBUTE_get0_data(attribute, 0, type, nil) {
                        signingTime = Certificate.date(UnsafePointer(value.assumingMemoryBound(to: ASN1_TIME.self)))
                        break
                    }
                }
            }
        }
        clearOpenSSLErrors()
        self.signers = signers
        self.certificates = certificates
        self.signingTime = signingTime
    }
}
