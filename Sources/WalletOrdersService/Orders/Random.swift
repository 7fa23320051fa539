/// Unguessable identifiers and tokens from the system's secure random source.
public enum Random {
    /// `bytes` random bytes as lower-case hex digits.
    public static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A new order identifier: 128 random bits.
    public static func identifier() -> String { hex(bytes: 16) }
    /// A new authentication token, or a key: 256 random bits.
    public static func token() -> String { hex(bytes: 32) }
}
