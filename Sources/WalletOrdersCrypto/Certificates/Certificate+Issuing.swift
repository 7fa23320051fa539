import COpenSSL
import Foundation

extension Certificate {
    /// What kind of certificate `issue` makes.
    public enum Role: Sendable {
        /// A certificate authority (root or intermediate).
        case authority
        /// An end-entity signing certificate.
        case signer
        /// A TLS server certificate for these DNS names and IP addresses.
        case server([String])
    }

    /// Issues a certificate for `subjectKey`, signed with SHA-256 by `issuerKey`.
    ///
    /// `subject` lists name attributes by OpenSSL short name (`UID`, `CN`, `OU`, `O`, `C`) in order. With no
    /// `issuer` the certificate is self-signed, so `issuerKey` must be `subjectKey`.
    public static func issue(
        subject: [(String, String)],
        subjectKey: PrivateKey,
        issuer: Certificate?,
        issuerKey: PrivateKey,
        role: Role,
        serial: Int,
        notBefore: Date,
        notAfter: Date
    ) throws -> Certificate {
        guard let x509 = X509_new() else { throw CryptoError("allocating a certificate") }
        let certificate = Certificate(owning: x509)
        guard X509_set_version(x509, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1,
            ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970)) != nil,
            X509_set_pubkey(x509, subjectKey.pointer) == 1
        else { throw CryptoError("filling in a certificate") }

        guard let name = X509_get_subject_name(x509) else { throw CryptoError("filling in a certificate") }
        for (field, value) in subject {
            let added = X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0)
            guard added == 1 else { throw CryptoError("adding \(field)=\(value) to a certificate's subject") }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else { throw CryptoError("setting the issuer") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x509, x509, nil, nil, 0)
        let extensions: [(Int32, String)] =
            switch role {
            case .authority:
                [
                    (NID_basic_constraints, "critical,CA:TRUE"),
                    (NID_key_usage, "critical,keyCertSign,cRLSign"),
                    (NID_subject_key_identifier, "hash"),
                    (NID_authority_key_identifier, "keyid:always"),
                ]
            case .signer:
                [
                    (NID_basic_constraints, "critical,CA:FALSE"),
                    (NID_key_usage, "critical,digitalSignature"),
                    (NID_subject_key_identifier, "hash"),
                    (NID_authority_key_identifier, "keyid:always"),
                ]
            case .server(let names):
                [
                    (NID_basic_constraints, "critical,CA:FALSE"),
                    (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
                    (NID_ext_key_usage, "serverAuth"),
                    (
                        NID_subject_alt_name,
                        names.map { name in
                            name.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? "IP:\(name)" : "DNS:\(name)"
                        }.joined(separator: ",")
                    ),
                    (NID_subject_key_identifier, "hash"),
                    (NID_authority_key_identifier, "keyid:always"),
                ]
            }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw CryptoError("building the certificate extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw CryptoError("adding the extension \(value)") }
        }
        guard X509_sign(x509, issuerKey.pointer, EVP_sha256()) > 0 else { throw CryptoError("signing a certificate") }
        return certificate
    }
}
