import Foundation

/// Any JSON value, kept exactly as received so that fields this service does not know survive every round trip.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The object's members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, when this is a whole number.
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: Int(value)
        default: nil
        }
    }

    /// The member `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type's name, for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// A problem reading JSON text.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Parses JSON text (UTF-8).
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONReader.read(data)
    }

    /// Compact JSON text with keys sorted, so equal values always give equal bytes.
    public func serialized(pretty: Bool = false) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out, pretty: pretty, indent: 0)
        if pretty { out.append(UInt8(ascii: "\n")) }
        return Data(out)
    }

    private func write(into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let value): out.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .int(let value): out.append(contentsOf: Array(String(value).utf8))
        case .double(let value):
            // Whole doubles print without a fraction so that 2.0 and 2 serialize alike.
            if value.rounded() == value, abs(value) < 1e15 {
                out.append(contentsOf: Array(String(Int(value)).utf8))
            } else {
                out.append(contentsOf: Array(String(value).utf8))
            }
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, indent: indent + 1)
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !values.isEmpty { Self.newline(&out, pretty: pretty, indent: indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, indent: indent + 1)
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !members.isEmpty { Self.newline(&out, pretty: pretty, indent: indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xf)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// Applies a JSON Merge Patch (RFC 7396) to this value.
    public func merging(patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var result = objectValue ?? [:]
        for (key, change) in changes {
            if change == .null {
                result.removeValue(forKey: key)
            } else {
                result[key] = (result[key] ?? .null).merging(patch: change)
            }
        }
        return .object(result)
    }
}
