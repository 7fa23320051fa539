/// Just enough DER (X.690) writing to assemble a CMS signature from parts OpenSSL encoded.
enum DER {
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let integer: UInt8 = 0x02
    static let octetString: UInt8 = 0x04
    static let utcTime: UInt8 = 0x17
    static let generalizedTime: UInt8 = 0x18
    /// `[0]`, constructed: an explicit or implicit context tag.
    static let contextZero: UInt8 = 0xa0

    /// The tag and definite length that start an element of `length` content bytes.
    static func header(_ tag: UInt8, length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 0xff_ffff, "DER elements here stay below 16 MiB")
        switch length {
        case ..<0x80: return [tag, UInt8(length)]
        case ..<0x100: return [tag, 0x81, UInt8(length)]
        case ..<0x1_0000: return [tag, 0x82, UInt8(length >> 8), UInt8(length & 0xff)]
        default: return [tag, 0x83, UInt8(length >> 16), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
        }
    }

    /// A whole element: tag, length, content.
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        header(tag, length: content.count) + content
    }

    /// Appends a whole element to `out`.
    static func append(_ tag: UInt8, _ content: [UInt8], to out: inout [UInt8]) {
        out += header(tag, length: content.count)
        out += content
    }

    /// The order of a DER `SET OF`: encodings compared as octet strings, a prefix sorting first (X.690 11.6, as
    /// OpenSSL's encoder sorts them).
    static func setOrder(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        for (a, b) in zip(left, right) where a != b { return a < b }
        return left.count < right.count
    }

    /// Object identifiers and algorithm identifiers a detached CMS signature uses, encoded.
    enum OID {
        /// id-data (1.2.840.113549.1.7.1).
        static let data: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01]
        /// id-signedData (1.2.840.113549.1.7.2).
        static let signedData: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]
        /// id-contentType (1.2.840.113549.1.9.3).
        static let contentType: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x03]
        /// id-messageDigest (1.2.840.113549.1.9.4).
        static let messageDigest: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04]
        /// id-signingTime (1.2.840.113549.1.9.5).
        static let signingTime: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x05]
        /// AlgorithmIdentifier { id-sha256 } with the parameters absent, as OpenSSL's CMS writes it.
        static let sha256Algorithm: [UInt8] = [
            0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
        ]
        /// AlgorithmIdentifier { rsaEncryption, NULL }: PKCS #1 v1.5 signatures in CMS.
        static let rsaEncryptionAlgorithm: [UInt8] = [
            0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
        ]
        /// AlgorithmIdentifier { ecdsa-with-SHA256 } with the parameters absent.
        static let ecdsaWithSHA256Algorithm: [UInt8] = [
            0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02,
        ]
    }
}
