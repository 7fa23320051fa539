import Foundation

/// Base64url as JWTs use it: `-` and `_` for `+` and `/`, no padding.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Written from the bytes in one pass: every update's own link encodes three values, and Foundation's encoder
    /// followed by three replacements showed in its profile.
    public static func encode(_ data: Data) -> String {
        let count = data.count
        return String(unsafeUninitializedCapacity: (count + 2) / 3 * 4) { output in
            var written = 0
            data.withUnsafeBytes { bytes in
                var index = 0
                while index + 3 <= count {
                    let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    output[written] = alphabet[Int(value >> 18 & 63)]
                    output[written + 1] = alphabet[Int(value >> 12 & 63)]
                    output[written + 2] = alphabet[Int(value >> 6 & 63)]
                    output[written + 3] = alphabet[Int(value & 63)]
                    written += 4
                    index += 3
                }
                let left = count - index
                guard left > 0 else { return }
                let value = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                output[written] = alphabet[Int(value >> 18 & 63)]
                output[written + 1] = alphabet[Int(value >> 12 & 63)]
                written += 2
                if left == 2 {
                    output[written] = alphabet[Int(value >> 6 & 63)]
                    written += 1
                }
            }
            return written
        }
    }

    /// Decodes base64url with or without padding.
    public static func decode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }
}
