import COpenSSL
import Foundation

/// An X.509 certificate.
///
/// `@unchecked Sendable`: the wrapped `X509` is never mutated after it is loaded or issued, and OpenSSL's
/// reference counting of it is thread-safe.
public final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of one reference to `pointer`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to `pointer`, which the caller keeps owning.
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// Reads a certificate from PEM or DER bytes.
    public convenience init(_ data: Data) throws {
        if let first = Self.allPEM(data).first {
            self.init(retaining: first.pointer)
            return
        }
        let parsed = try MemoryBIO.reading(data) { bio in d2i_X509_bio(bio, nil) }
        guard let parsed else {
            throw CryptoError("reading a certificate: the bytes are neither PEM nor DER X.509")
        }
        self.init(owning: parsed)
    }

    /// Every PEM certificate in `data`, in order; none when there is no PEM certificate.
    public static func allPEM(_ data: Data) -> [Certificate] {
        var certificates: [Certificate] = []
        _ = try? MemoryBIO.reading(data) { bio in
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(Certificate(owning: x509))
            }
        }
        // Reaching the end of the input is reported as an error by PEM_read_bio_X509.
        clearOpenSSLErrors()
        return certificates
    }

    /// The DER encoding.
    public var der: Data {
        // i2d of a certificate that was parsed or signed cannot fail short of memory exhaustion.
        (try? MemoryBIO.writing("encoding a certificate") { i2d_X509_bio($0, pointer) }) ?? Data()
    }

    /// The PEM encoding.
    public var pem: String {
        let data = (try? MemoryBIO.writing("encoding a certificate") { PEM_write_bio_X509($0, pointer) }) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The subject's user ID (UID), where Apple puts the Pass or Order Type ID.
    public var subjectUserID: String? { subjectEntry(NID_userId) }
    /// The subject's organizational unit (OU), where Apple puts the team ID.
    public var subjectOrganizationalUnit: String? { subjectEntry(NID_organizationalUnitName) }
    /// The subject's common name (CN).
    public var subjectCommonName: String? { subjectEntry(NID_commonName) }

    /// The subject as one line, for messages.
    public var subjectDescription: String { Self.describe(X509_get_subject_name(pointer)) }
    /// The issuer as one line, for messages.
    public var issuerDescription: String { Self.describe(X509_get_issuer_name(pointer)) }

    /// The start of the validity period.
    public var notBefore: Date { Self.date(X509_get0_notBefore(pointer)) ?? .distantFuture }
    /// The end of the validity period.
    public var notAfter: Date { Self.date(X509_get0_notAfter(pointer)) ?? .distantPast }

    /// Whether `issuer`'s name and key issued this certificate (the signature is checked).
    public func isIssued(by issuer: Certificate) -> Bool {
        defer { clearOpenSSLErrors() }
        guard X509_check_issued(issuer.pointer, pointer) == X509_V_OK else { return false }
        guard let key = X509_get0_pubkey(issuer.pointer) else { return false }
        return X509_verify(pointer, key) == 1
    }

    /// Whether two values hold the same certificate.
    public func isSame(as other: Certificate) -> Bool {
        X509_cmp(pointer, other.pointer) == 0
    }

    private func subjectEntry(_ nid: Int32) -> String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let asn1 = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, asn1)
        guard length >= 0, let utf8 else { return nil }
        defer { wo_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    private static func describe(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let data =
            (try? MemoryBIO.writing("printing a name") {
                X509_NAME_print_ex($0, name, 0, wo_name_print_flags())
            }) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
