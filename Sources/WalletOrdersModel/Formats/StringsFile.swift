import Foundation

/// A `.strings` file (`<lang>.lproj/order.strings`): `"KEY" = "value";` pairs with `/* */` and `//` comments.
///
/// Wallet reads the file as UTF-8 or as UTF-16 with a byte order mark; any other encoding, a missing quote or
/// semicolon, or an unknown escape makes it unreadable, and Wallet then shows the keys instead of the text.
public struct StringsFile: Sendable, Hashable {
    /// The strings by key; when a key repeats, the last value wins, as Apple's reader does.
    public let strings: [String: String]
    /// The keys in the order the file lists them, each once.
    public let keys: [String]

    /// Why a strings file cannot be read: the line (from 1) where reading stopped and what was wrong there.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line where the problem is, or nil for a problem with the whole file (its encoding).
        public let line: Int?
        /// What is wrong.
        public let message: String

        /// A problem at `line` (nil for the whole file).
        public init(line: Int?, message: String) {
            self.line = line
            self.message = message
        }

        /// `line N: message`, or the message alone for the whole file.
        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }

    /// Reads a strings file's bytes.
    public init(data: Data) throws(ParseError) {
        var parser = Parser(scalars: try Self.decode(data))
        var strings: [String: String] = [:]
        var keys: [String] = []
        while try parser.skipSpaceAndComments() {
            let keyLine = parser.line
            let key = try parser.string(what: "a key")
            try parser.skipSpaceAndCommentsBeforeMore()
            let value: String
            if parser.take("=") {
                try parser.skipSpaceAndCommentsBeforeMore()
                value = try parser.string(what: "the value of \"\(key)\"")
                try parser.skipSpaceAndCommentsBeforeMore()
            } else {
                // A key alone stands for itself: "KEY";
                value = key
            }
            guard parser.take(";") else {
                throw ParseError(line: parser.line, message: "expected ; after the entry for \"\(key)\" (line \(keyLine))")
            }
            if strings.updateValue(value, forKey: key) == nil { keys.append(key) }
        }
        self.strings = strings
        self.keys = keys
    }

    /// The file's text: UTF-8 (a byte order mark is allowed), or UTF-16 with a byte order mark.
    private static func decode(_ data: Data) throws(ParseError) -> [Unicode.Scalar] {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xff, 0xfe]) || bytes.starts(with: [0xfe, 0xff]) {
            let littleEndian = bytes[0] == 0xff
            guard bytes.count % 2 == 0 else {
                throw ParseError(line: nil, message: "is UTF-16 with an odd number of bytes")
            }
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2 - 1)
            var index = 2
            while index < bytes.count {
                let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
                units.append(littleEndian ? first | second << 8 : first << 8 | second)
                index += 2
            }
            var scalars: [Unicode.Scalar] = []
            var decoder = UTF16()
            var iterator = units.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): scalars.append(scalar)
                case .emptyInput: break loop
                case .error: throw ParseError(line: nil, message: "is not valid UTF-16 (a broken surrogate pair)")
                }
            }
            return scalars
        }
        let body = bytes.starts(with: [0xef, 0xbb, 0xbf]) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            throw ParseError(line: nil, message: "is neither UTF-8 nor UTF-16 with a byte order mark")
        }
        if text.unicodeScalars.contains("\u{0}") {
            throw ParseError(line: nil, message: "holds NUL bytes: UTF-16 text needs a byte order mark")
        }
        return Array(text.unicodeScalars)
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1

        init(scalars: [Unicode.Scalar]) {
            self.scalars = scalars
            // A byte order mark decoded from UTF-16 is not part of the text.
            if scalars.first == "\u{FEFF}" { index = 1 }
        }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func advance() {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard current == scalar else { return false }
            advance()
            return true
        }

        /// Skips whitespace and comments; false at the end of the text.
        mutating func skipSpaceAndComments() throws(ParseError) -> Bool {
            while let scalar = current {
                if scalar.properties.isWhitespace {
                    advance()
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                    let start = line
                    index += 2
                    while current != nil, !(current == "*" && index + 1 < scalars.count && scalars[index + 1] == "/") {
                        advance()
                    }
                    guard current != nil else { throw ParseError(line: start, message: "a /* comment is never closed") }
                    index += 2
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                    while let next = current, next != "\n" { advance() }
                } else {
                    return true
                }
            }
            return false
        }

        /// Skips whitespace and comments where the entry must go on.
        mutating func skipSpaceAndCommentsBeforeMore() throws(ParseError) {
            guard try skipSpaceAndComments() else {
                throw ParseError(line: line, message: "the file ends in the middle of an entry")
            }
        }

        /// A quoted string, or an unquoted one of letters, digits and _ $ + / : . - as property lists allow.
        mutating func string(what: String) throws(ParseError) -> String {
            guard let first = current else { throw ParseError(line: line, message: "expected \(what)") }
            if first != "\"" {
                var text = String.UnicodeScalarView()
                while let scalar = current, Self.isUnquoted(scalar) {
                    text.append(scalar)
                    advance()
                }
                guard !text.isEmpty else {
                    throw ParseError(line: line, message: "expected \(what) in double quotes, found \(Self.quoted(first))")
                }
                return String(text)
            }
            let start = line
            advance()
            var text = String.UnicodeScalarView()
            while true {
                guard let scalar = current else {
                    throw ParseError(line: start, message: "the string that starts here is never closed with \"")
                }
                advance()
                if scalar == "\"" { return String(text) }
                guard scalar == "\\" else {
                    text.append(scalar)
                    continue
                }
                guard let escaped = current else {
                    throw ParseError(line: start, message: "the string that starts here is never closed with \"")
                }
                advance()
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "a": text.append("\u{7}")
                case "b": text.append("\u{8}")
                case "f": text.append("\u{c}")
                case "v": text.append("\u{b}")
                case "\"", "\\", "'", "\n": text.append(escaped)
                case "U":
                    guard var value = hexDigits() else {
                        text.append(escaped)
                        continue
                    }
                    // UTF-16 strings write characters beyond U+FFFF as a pair: \UD83D\UDE00.
                    if (0xD800...0xDBFF).contains(value) {
                        var pair = self
                        guard pair.take("\\"), pair.take("U"), let low = pair.hexDigits(), (0xDC00...0xDFFF).contains(low)
                        else { throw ParseError(line: line, message: "\\U\(String(value, radix: 16)) is half a UTF-16 pair") }
                        self = pair
                        value = 0x10000 + (value - 0xD800) << 10 + (low - 0xDC00)
                    }
                    guard let decoded = Unicode.Scalar(value) else {
                        throw ParseError(line: line, message: "\\U\(String(value, radix: 16)) names no Unicode character")
                    }
                    text.append(decoded)
                case "0"..."7":
                    var value = escaped.value - 0x30
                    for _ in 0..<2 {
                        guard let digit = current, ("0"..."7").contains(digit) else { break }
                        value = value << 3 | (digit.value - 0x30)
                        advance()
                    }
                    text.append(Unicode.Scalar(UInt8(truncatingIfNeeded: value)))
                default:
                    // Apple's reader keeps the character of an escape it does not know.
                    text.append(escaped)
                }
            }
        }

        /// One to four hex digits, as after \U.
        mutating func hexDigits() -> UInt32? {
            var value: UInt32 = 0
            var count = 0
            while count < 4, let digit = current, let nibble = Self.hexValue(digit) {
                value = value << 4 | nibble
                advance()
                count += 1
            }
            return count > 0 ? value : nil
        }

        static func isUnquoted(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "$", "+", "/", ":", ".", "-": true
            default: false
            }
        }

        static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
            switch scalar {
            case "0"..."9": scalar.value - 0x30
            case "a"..."f": scalar.value - 0x61 + 10
            case "A"..."F": scalar.value - 0x41 + 10
            default: nil
            }
        }

        static func quoted(_ scalar: Unicode.Scalar) -> String {
            scalar.properties.isWhitespace || scalar.value < 0x20
                ? "U+\(String(scalar.value, radix: 16, uppercase: true))"
                : "\(Character(scalar))"
        }
    }
}
