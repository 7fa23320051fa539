import Hummingbird

extension Request {
    /// The credential after `scheme` in the Authorization header (`AppleOrder …`, `Bearer …`).
    public func credential(scheme: String) -> String? {
        // On UTF-8 bytes: Foundation's lowercasing and trimming showed in the order fetch's profile.
        guard let header = headers[.authorization]?.utf8 else { return nil }
        let prefix = scheme.utf8
        guard header.count > prefix.count + 1,
            zip(header, prefix).allSatisfy({ Self.asciiLowercased($0) == Self.asciiLowercased($1) }),
            header[header.index(header.startIndex, offsetBy: prefix.count)] == UInt8(ascii: " ")
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let rest = header.dropFirst(prefix.count + 1).drop(while: isBlank)
        var end = rest.endIndex
        while end > rest.startIndex, isBlank(rest[rest.index(before: end)]) { end = rest.index(before: end) }
        return String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
