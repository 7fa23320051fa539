import Foundation

/// Comparisons whose time does not depend on where two secrets differ: for keys, tokens and signatures, in every module
/// that checks one (the HTTP layer, the services, the tracking and shop webhooks).
public enum ConstantTime {
    /// Whether `a` and `b` are equal, looking at every byte of the longer one whatever they hold.
    public static func equals(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        // Native strings are contiguous UTF-8 (made so if bridged): compared in place, without copying them.
        return a.withUTF8 { left in b.withUTF8 { right in equals(left, right) } }
    }

    private static func equals(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        // A length difference counts whole: truncated to a byte, 256 more NULs would pass.
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// Whether `candidate` equals any of `secrets`; every secret is compared, so timing tells nothing of which.
    public static func matchesAny(_ candidate: String, _ secrets: [String]) -> Bool {
        secrets.reduce(false) { found, secret in equals(candidate, secret) || found }
    }

    /// Whether `a` and `b` hold the same bytes, looking at every byte of the longer one whatever they hold.
    public static func equals(_ a: Data, _ b: Data) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[a.startIndex + index] : 0
            let y = index < b.count ? b[b.startIndex + index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// A short digest of a secret (the first 16 bytes of its SHA-256, hex) to remember it by without keeping it.
    public static func digest(_ secret: String) -> String {
        // Hex by hand: a String(format:) per byte showed in every merchant request's profile.
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in DigestAlgorithm.sha256.digest(Data(secret.utf8)).prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
