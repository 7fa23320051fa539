import Foundation

/// Reads JSON text (RFC 8259, UTF-8) byte by byte into a `JSONValue`.
///
/// Every merchant write parses the order's stored document again, and the request bodies of the open internet
/// come through here too; going through `JSONDecoder` and `Codable` cost about a tenth of an update's CPU.
/// What it makes agrees with `JSONDecoder` decoding `JSONValue`: a number written without fraction or exponent
/// that fits is an `int`, any other number that is whole and fits is an `int` too, the rest `double`; the first
/// of repeated keys wins; nesting is limited, so that hostile input cannot exhaust the stack. Two differences, both
/// toward RFC 8259: a trailing comma in an array or object is an error (`JSONDecoder` lets it pass), and
/// -9223372036854775808 is the `int` it is (`JSONDecoder` makes it a `double`). Numbers with a fraction or an
/// exponent go through `Double`, so past 2^53 they may differ from `JSONDecoder`'s in their last digits.
struct JSONReader: ~Copyable {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Scratch space for strings with escapes, kept across them.
    private var unescaped: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func read(_ data: Data) throws(JSONValue.ParseError) -> JSONValue {
        do {
            return try data.withUnsafeBytes { raw in
                var reader = JSONReader(raw.bindMemory(to: UInt8.self))
                return try reader.document()
            }
        } catch let error as JSONValue.ParseError {
            throw error
        } catch {
            throw JSONValue.ParseError(description: "the body is not valid JSON")
        }
    }

    private mutating func document() throws(JSONValue.ParseError) -> JSONValue {
        // A byte order mark is not JSON, but JSONDecoder skips one.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        let value = try value()
        skipWhitespace()
        guard index == bytes.count else { throw problem("unexpected text after the value") }
        return value
    }

    private mutating func value() throws(JSONValue.ParseError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw problem("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw problem("unexpected character where a value should be")
        }
    }

    private mutating func object() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            leave()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw problem("an object's key must be a string") }
            let key = try string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw problem("a colon must follow an object's key") }
            index += 1
            let value = try value()
            // The first of repeated keys wins, as in JSONDecoder. Two keys that differ only in Unicode normalization
            // (é as one scalar or as e and an accent) are one key to Swift and one file name to Apple's file
            // systems: refused rather than one dropped in silence.
            if let existing = members.index(forKey: key) {
                let first = members[existing].key
                if !first.unicodeScalars.elementsEqual(key.unicodeScalars) {
                    throw problem("the keys \"\(first)\" and \"\(key)\" differ only in Unicode normalization (NFC, NFD)")
                }
            } else {
                members[key] = value
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                leave()
                return .object(members)
            default: throw problem("a comma or a closing brace must follow an object's member")
            }
        }
    }

    private mutating func array() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            leave()
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                leave()
                return .array(elements)
            default: throw problem("a comma or a closing bracket must follow an array's element")
            }
        }
    }

    /// Steps over the opening `{` or `[`, counting the depth.
    private mutating func enter() throws(JSONValue.ParseError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw problem("more than \(Self.maxDepth) nested arrays and objects") }
        index += 1
    }

    /// Steps over the closing `}` or `]`.
    private mutating func leave() {
        depth -= 1
        index += 1
    }

    /// The string starting at the opening quote; the index ends past the closing one.
    private mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        // Most strings have no escape: they are validated and copied once, straight from the input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try text(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw problem("a control character must be escaped in a string") }
            index += 1
        }
        unescaped.removeAll(keepingCapacity: true)
        unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try unescaped.withUnsafeBufferPointer { buffer throws(JSONValue.ParseError) in try text(buffer) }
            case UInt8(ascii: "\\"):
                index += 1
                try escape()
            case 0..<0x20:
                throw problem("a control character must be escaped in a string")
            default:
                unescaped.append(byte)
                index += 1
            }
        }
        throw problem("a string is not closed")
    }

    /// The escape after a backslash, appended to `unescaped` as UTF-8.
    private mutating func escape() throws(JSONValue.ParseError) {
        guard index < bytes.count else { throw problem("a string is not closed") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(byte)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate: only with the low one that must follow is it a character.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw problem("a \\u escape has a high surrogate without its low one") }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else {
                    throw problem("a \\u escape has a high surrogate without its low one")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw problem("a \\u escape has a low surrogate without its high one")
            }
            unescaped.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            index -= 1
            throw problem("unknown escape in a string")
        }
    }

    private mutating func hexQuad() throws(JSONValue.ParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw problem("a \\u escape needs four hexadecimal digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw problem("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw problem("a string is not valid UTF-8") }
        return text
    }

    private mutating func number() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // Integer part: 0, or digits not starting with 0. Accumulated negatively, so Int.min fits.
        var integer = 0
        var fits = true
        let digitsStart = index
        while index < bytes.count, case UInt8(ascii: "0")...UInt8(ascii: "9") = bytes[index] {
            let digit = Int(bytes[index] - UInt8(ascii: "0"))
            let (shifted, overflowShift) = integer.multipliedReportingOverflow(by: 10)
            let (next, overflowDigit) = shifted.subtractingReportingOverflow(digit)
            if overflowShift || overflowDigit { fits = false } else { integer = next }
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0 else { throw problem("a number needs digits") }
        guard digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { throw problem("a number starts with 0") }
        var whole = true
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { throw problem("a number's fraction needs digits") }
            whole = false
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { throw problem("a number's exponent needs digits") }
            whole = false
        }
        if whole, fits {
            if negative { return .int(integer) }
            if integer != .min { return .int(-integer) }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(literal), double.isFinite else {
            throw problem("the number \(literal) is too large")
        }
        if let integer = Int(exactly: double) { return .int(integer) }
        return .double(double)
    }

    /// Steps over decimal digits; answers whether there was one.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, case UInt8(ascii: "0")...UInt8(ascii: "9") = bytes[index] { index += 1 }
        return index > start
    }

    private mutating func literal(_ word: StaticString) throws(JSONValue.ParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
        else { throw problem("unexpected character where a value should be") }
        index += count
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private func problem(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(description: "the body is not valid JSON: \(reason) (at byte \(index))")
    }
}
