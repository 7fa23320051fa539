import Foundation

/// The part of RFC 8941 (Structured Field Values for HTTP) that HTTP Message Signatures use: dictionaries whose members
/// are items or inner lists, with parameters; integers, strings, tokens, byte sequences and booleans. Parsing is strict
/// (what RFC 8941 refuses, this refuses) and bounded; serializing writes the canonical form, which a signature's
/// `@signature-params` line is.
enum StructuredField {
    /// A bare item. Decimals are not among them: no field a signature needs holds one, and one is refused.
    enum Bare: Equatable {
        case integer(Int)
        case string(String)
        case token(String)
        case bytes(Data)
        case boolean(Bool)
    }

    /// An item with its parameters, in the order they were written.
    struct Item: Equatable {
        var bare: Bare
        var parameters: [(key: String, value: Bare)]

        static func == (a: Item, b: Item) -> Bool {
            a.bare == b.bare && a.parameters.elementsEqual(b.parameters) { $0.key == $1.key && $0.value == $1.value }
        }

        /// The value of the last parameter named `key` (RFC 8941: a later one overrides).
        func parameter(_ key: String) -> Bare? { parameters.last { $0.key == key }?.value }
    }

    /// A dictionary member: an item, or an inner list of items with parameters of its own.
    enum Member: Equatable {
        case item(Item)
        case innerList([Item], parameters: Item)
    }

    /// The most members, list items and parameters taken: far more than a signature uses, far fewer than a hostile
    /// header could hold.
    static let maxMembers = 32

    /// The members of a dictionary field, in order; nil for text that is not one, or exceeds the bounds.
    static func dictionary(_ text: String) -> [(key: String, member: Member)]? {
        var parser = Parser(Array(text.utf8))
        return parser.dictionary()
    }

    /// The canonical text of an inner list and its parameters: `("@method" "@path");created=1618884473;keyid="k"`.
    static func serialize(innerList items: [Item], parameters: Item) -> String {
        "(" + items.map(serialize(item:)).joined(separator: " ") + ")" + serialize(parameters: parameters.parameters)
    }

    static func serialize(item: Item) -> String {
        serialize(bare: item.bare) + serialize(parameters: item.parameters)
    }

    private static func serialize(parameters: [(key: String, value: Bare)]) -> String {
        parameters.map { key, value in value == .boolean(true) ? ";\(key)" : ";\(key)=\(serialize(bare: value))" }.joined()
    }

    private static func serialize(bare: Bare) -> String {
        switch bare {
        case .integer(let number): String(number)
        case .string(let text): "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .token(let token): token
        case .bytes(let bytes): ":" + bytes.base64EncodedString() + ":"
        case .boolean(let flag): flag ? "?1" : "?0"
        }
    }

    /// RFC 8941 section 4.2, over the field's bytes.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skip(_ spacesOnly: Bool) {
            while let byte = current, byte == 0x20 || (!spacesOnly && byte == 0x09) { index += 1 }
        }

        mutating func dictionary() -> [(key: String, member: Member)]? {
            var members: [(key: String, member: Member)] = []
            skip(true)
            while current != nil {
                guard members.count < maxMembers, let key = key() else { return nil }
                let member: Member
                if current == UInt8(ascii: "=") {
                    index += 1
                    guard let parsed = itemOrInnerList() else { return nil }
                    member = parsed
                } else {
                    guard let parameters = parameters() else { return nil }
                    member = .item(Item(bare: .boolean(true), parameters: parameters))
                }
                members.removeAll { $0.key == key }
                members.append((key, member))
                skip(false)
                guard current != nil else { return members }
                guard current == UInt8(ascii: ",") else { return nil }
                index += 1
                skip(false)
                guard current != nil else { return nil }
            }
            return members
        }

        mutating func itemOrInnerList() -> Member? {
            guard current == UInt8(ascii: "(") else { return item().map(Member.item) }
            index += 1
            var items: [Item] = []
            while true {
                skip(true)
                if current == UInt8(ascii: ")") {
                    index += 1
                    guard let parameters = parameters() else { return nil }
                    return .innerList(items, parameters: Item(bare: .boolean(true), parameters: parameters))
                }
                guard items.count < maxMembers, let item = item() else { return nil }
                items.append(item)
                guard current == UInt8(ascii: " ") || current == UInt8(ascii: ")") else { return nil }
            }
        }

        mutating func item() -> Item? {
            guard let bare = bare(), let parameters = parameters() else { return nil }
            return Item(bare: bare, parameters: parameters)
        }

        mutating func parameters() -> [(key: String, value: Bare)]? {
            var parameters: [(key: String, value: Bare)] = []
            while current == UInt8(ascii: ";") {
                index += 1
                skip(true)
                guard parameters.count < maxMembers, let key = key() else { return nil }
                var value = Bare.boolean(true)
                if current == UInt8(ascii: "=") {
                    index += 1
                    guard let parsed = bare() else { return nil }
                    value = parsed
                }
                parameters.removeAll { $0.key == key }
                parameters.append((key, value))
            }
            return parameters
        }

        mutating func key() -> String? {
            guard let first = current, isLower(first) || first == UInt8(ascii: "*") else { return nil }
            let start = index
            while let byte = current, isLower(byte) || isDigit(byte) || "_-.*".utf8.contains(byte), index - start < 64 { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func bare() -> Bare? {
            guard let byte = current else { return nil }
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: ":"): return byteSequence()
            case UInt8(ascii: "?"):
                index += 1
                defer { index += 1 }
                switch current {
                case UInt8(ascii: "1"): return .boolean(true)
                case UInt8(ascii: "0"): return .boolean(false)
                default: return nil
                }
            default:
                guard isAlpha(byte) || byte == UInt8(ascii: "*") else { return nil }
                let start = index
                while let next = current, isTokenChar(next) { index += 1 }
                return .token(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func integer() -> Bare? {
            var negative = false
            if current == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            var value = 0
            var digits = 0
            while let byte = current, isDigit(byte) {
                digits += 1
                guard digits <= 15 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            // A decimal (a fraction) is not taken.
            guard digits > 0, current != UInt8(ascii: ".") else { return nil }
            return .integer(negative ? -value : value)
        }

        mutating func string() -> Bare? {
            index += 1
            var out: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\\"):
                    guard let next = current, next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") else { return nil }
                    out.append(next)
                    index += 1
                case UInt8(ascii: "\""):
                    return .string(String(decoding: out, as: UTF8.self))
                case 0x20...0x7E:
                    out.append(byte)
                default:
                    return nil
                }
            }
            return nil
        }

        mutating func byteSequence() -> Bare? {
            index += 1
            let start = index
            while let byte = current, byte != UInt8(ascii: ":") {
                guard isAlpha(byte) || isDigit(byte) || "+/=".utf8.contains(byte) else { return nil }
                index += 1
            }
            guard current == UInt8(ascii: ":") else { return nil }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            // Only the one encoding of the bytes: padding bits left over, or padding left out, would let two texts
            // carry one signature.
            guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
            return .bytes(data)
        }

        func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        func isAlpha(_ byte: UInt8) -> Bool { isLower(byte) || (byte >= 0x41 && byte <= 0x5A) }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        /// RFC 9110's tchar, and `:` and `/` (RFC 8941 section 3.3.4).
        func isTokenChar(_ byte: UInt8) -> Bool {
            isAlpha(byte) || isDigit(byte) || "!#$%&'*+-.^_`|~:/".utf8.contains(byte)
        }
    }
}
