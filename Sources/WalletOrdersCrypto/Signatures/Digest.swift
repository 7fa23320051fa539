import COpenSSL
import Foundation

/// A message digest used for manifest entries.
public enum DigestAlgorithm: String, Sendable, CaseIterable, Codable {
    case sha256
    case sha1

    /// The number of hex digits a digest of this kind has.
    public var hexLength: Int {
        switch self {
        case .sha256: 64
        case .sha1: 40
        }
    }

    /// The digest of `data`, in lowercase hex.
    public func hexDigest(_ data: Data) -> String {
        Hex.encode(digest(data))
    }

    /// The digest of `data`.
    public func digest(_ data: Data) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md =
            switch self {
            case .sha256: EVP_sha256()
            case .sha1: EVP_sha1()
            }
        let ok = data.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &output, &length, md, nil)
        }
        // EVP_Digest cannot fail for a built-in digest with valid buffers; a failure means a broken OpenSSL.
        precondition(ok == 1, "OpenSSL could not compute \(rawValue)")
        return Array(output.prefix(Int(length)))
    }
}

/// Lowercase hexadecimal text for bytes.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension DigestAlgorithm {
    /// The algorithm a setting or a command-line option names; throws, saying which names there are, for any other.
    public static func named(_ name: String) throws(UnknownDigestAlgorithm) -> DigestAlgorithm {
        guard let algorithm = DigestAlgorithm(rawValue: name.lowercased()) else { throw UnknownDigestAlgorithm(name: name) }
        return algorithm
    }
}

/// A manifest digest named that is neither `sha256` nor `sha1`.
public struct UnknownDigestAlgorithm: Error, CustomStringConvertible, Sendable {
    public let name: String

    public var description: String {
        "the manifest digest must be \(DigestAlgorithm.allCases.map(\.rawValue).joined(separator: " or ")), not \(name)"
    }
}
