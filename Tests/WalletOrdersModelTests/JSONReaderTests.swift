import Foundation
import Testing
import WalletOrdersModel

/// `JSONValue.parse` reads JSON itself; `JSONDecoder` decoding `JSONValue` is what it must agree with.
@Suite(.timeLimit(.minutes(5))) struct JSONReaderTests {
    /// What Foundation makes of `text`: the value, or nil when it refuses it.
    static func foundation(_ text: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text))
    }

    static func ours(_ text: [UInt8]) -> JSONValue? {
        try? JSONValue.parse(Data(text))
    }

    /// Whether our reading of `text` agrees with Foundation's: the same values, numbers within a part in 10^15
    /// (past 2^53 the two round a number with a fraction or exponent differently); where Foundation lets a
    /// trailing comma pass and we do not, the text without it must read as Foundation read it.
    static func agree(_ text: [UInt8]) -> Bool {
        let ours = ours(text)
        let theirs = foundation(text)
        if ours == nil, let theirs {
            let cleaned = withoutTrailingCommas(text)
            return cleaned != text && same(Self.ours(cleaned), theirs)
        }
        return same(ours, theirs)
    }

    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.int(let x)?, .double(let y)?), (.double(let y)?, .int(let x)?): return close(Double(x), y)
        case (.int(let x)?, .int(let y)?): return close(Double(x), Double(y))
        case (.double(let x)?, .double(let y)?): return close(x, y)
        case (.array(let x)?, .array(let y)?): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x)?, .object(let y)?): return x.keys == y.keys && x.allSatisfy { same($0.value, y[$0.key]) }
        default: return a == b
        }
    }

    static func close(_ x: Double, _ y: Double) -> Bool {
        abs(x - y) <= max(abs(x), abs(y)) * 1e-15
    }

    /// `text` without the commas that stand right before a closing bracket or brace, outside strings.
    static func withoutTrailingCommas(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        for (index, byte) in text.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ","),
                let next = text[(index + 1)...].first(where: { !Array(" \t\r\n".utf8).contains($0) }),
                next == UInt8(ascii: "]") || next == UInt8(ascii: "}")
            {
                continue
            }
            out.append(byte)
        }
        return out
    }

    @Test func agreesWithFoundationOnChosenCases() {
        let cases = [
            "{}", "[]", "0", "-0", "1", "-1", "2.0", "2.5", "-2.5e3", "1e2", "1E+2", "1e-2", "0.1", "1.5e300",
            "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "123456789012345678901234567890", "1e400", "-1e400", "1e-400", "true", "false", "null",
            #""a""#, #""\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r""#, #""\ud83d""#, #""\ude00""#, #""\ud83dx""#,
            #""\ud83d\u0041""#, #""\x""#, #""\u12""#, #""\u12g4""#, "\"\u{1}\"", "\"\u{7f}\"", "\"é😀\"",
            #"{"a":1,"a":2}"#, #"{"b":[1,{"c":null}],"a":{}}"#, " \t\r\n[ 1 , 2 ] \n", "\u{feff}{}",
            "", " ", "[", "]", "{", "[,1]", "{\"a\"}", "{\"a\":}", "{a:1}", "01", "-",
            "1.", ".5", "+1", "1e", "1e+", "--1", "tru", "truee", "nul", "[1 2]", "{\"a\":1 \"b\":2}", "1 2",
            "'a'", "[1]x", "\"abc", "NaN", "Infinity", "-Infinity", "[1e1]", "0x10", "00", "-01", "1.0e", "[-]",
        ]
        for text in cases {
            let bytes = Array(text.utf8)
            #expect(Self.agree(bytes), "\(text)")
        }
        // Where we keep to RFC 8259 and Foundation does not.
        #expect(Self.foundation(Array("[1,]".utf8)) == .array([.int(1)]))
        for text in ["[1,]", "{\"a\":1,}", "[1,\n]", "[{},]"] {
            #expect(Self.ours(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(Self.ours(Array("-9223372036854775808".utf8)) == .int(.min))
        #expect(Self.ours(Array("[9007199254740993]".utf8)) == .array([.int(9_007_199_254_740_993)]))
        #expect(Self.ours(Array("9223372036854775807".utf8)) == .int(.max))
        #expect(Self.ours(Array("[2.0, 1e2, 2.5]".utf8)) == .array([.int(2), .int(100), .double(2.5)]))
        // Bytes that are not UTF-8, inside a string and outside one.
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xFF],
            [0x5B, 0x22, 0x61, 0x22, 0x2C, 0x22, 0xE2, 0x82, 0x22, 0x5D],
        ] {
            #expect(Self.ours(bytes) == Self.foundation(bytes), "\(bytes)")
        }
    }

    @Test func refusesNestingDeeperThanFoundationDoes() {
        let deep =
            Array(repeating: UInt8(ascii: "["), count: 100_000)
            + Array(repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(Self.ours(deep) == nil)
        let allowed = Array(repeating: UInt8(ascii: "["), count: 100) + Array(repeating: UInt8(ascii: "]"), count: 100)
        #expect(Self.ours(allowed) != nil)
        #expect(Self.ours(allowed) == Self.foundation(allowed))
    }

    @Test func namesTheProblemAndWhereItIs() throws {
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data(#"{"a": tru}"#.utf8)) }
        #expect(
            error.description
                == "the body is not valid JSON: unexpected character where a value should be (at byte 6)"
        )
    }

    /// `é.png` as one scalar and as `e` and a combining accent: one key to Swift, one file on Apple's file systems.
    @Test func keysThatDifferOnlyInNormalizationAreRefusedAndRepeatedKeysKeepTheFirst() throws {
        let composed = "\u{E9}.png"
        let decomposed = "e\u{301}.png"
        let text = #"{"assets": {"\#(composed)": "QQ==", "\#(decomposed)": "Qg=="}}"#
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(error.description.contains("differ only in Unicode normalization"), "\(error)")
        let repeated = try JSONValue.parse(Data(#"{"a": 1, "a": 2}"#.utf8))
        #expect(repeated == .object(["a": .int(1)]))
    }

    /// Random documents, written with random spacing and number and string forms, then bent at random: both
    /// readers must accept the same texts and make the same values of them.
    @Test func agreesWithFoundationOnRandomAndDamagedDocuments() {
        var random = SplitMix64(seed: 0x5EED_0F_0DE5)
        var accepted = 0
        for round in 0..<6_000 {
            var text = Self.document(depth: 0, &random)
            if round % 2 == 1 { Self.damage(&text, &random) }
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            let readings = "\(String(describing: Self.ours(text))) against \(String(describing: Self.foundation(text)))"
            #expect(Self.agree(text), "\(shown): \(readings)")
            if Self.ours(text) != nil { accepted += 1 }
        }
        // Both halves must have been exercised: most intact documents parse, most damaged ones do not.
        #expect(accepted > 3_000 && accepted < 5_800)
    }

    static func document(depth: Int, _ random: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        space(&out, &random)
        switch random.next(depth > 3 ? 5 : 7) {
        case 0: out += Array(["null", "true", "false"][random.next(3)].utf8)
        case 1, 2: out += number(&random)
        case 3, 4: out += string(&random)
        case 5:
            out.append(UInt8(ascii: "["))
            for index in 0..<random.next(4) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += document(depth: depth + 1, &random)
            }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(UInt8(ascii: "{"))
            for index in 0..<random.next(4) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                space(&out, &random)
                // Keys differ: Foundation converts only the value a repeated key keeps, so it lets pass
                // an overflowing number or a broken string under the other; we refuse those.
                out += Array("\"\(index)".utf8) + string(&random).dropFirst()
                space(&out, &random)
                out.append(UInt8(ascii: ":"))
                out += document(depth: depth + 1, &random)
            }
            out.append(UInt8(ascii: "}"))
        }
        space(&out, &random)
        return out
    }

    static func space(_ out: inout [UInt8], _ random: inout SplitMix64) {
        for _ in 0..<random.next(3) { out.append(Array(" \t\r\n".utf8)[random.next(4)]) }
    }

    static func number(_ random: inout SplitMix64) -> [UInt8] {
        var text = random.next(3) == 0 ? "-" : ""
        let digits = [
            "0", "7", "42", "9007199254740993", "9223372036854775807", "9223372036854775808",
            "18446744073709551616", "123456789012345678901234567890",
        ][random.next(8)]
        text += digits
        if random.next(3) == 0 { text += "." + ["0", "5", "25", "000001", "1234567890123"][random.next(5)] }
        if random.next(4) == 0 {
            text +=
                ["e", "E"][random.next(2)] + ["", "+", "-"][random.next(3)]
                + ["0", "2", "17", "308", "400"][random.next(5)]
        }
        return Array(text.utf8)
    }

    static func string(_ random: inout SplitMix64) -> [UInt8] {
        let pieces = [
            "a", "orderNumber", "é", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\uD83D\\uDE00",
            "\\u0000", "\\b\\f\\r\\t", " ", "日本",
        ]
        var text = "\""
        for _ in 0..<random.next(5) { text += pieces[random.next(pieces.count)] }
        return Array((text + "\"").utf8)
    }

    /// One random change: a byte dropped, doubled, replaced or put in, from bytes that matter to JSON.
    static func damage(_ text: inout [UInt8], _ random: inout SplitMix64) {
        let interesting = Array("{}[]\",:\\-+.eE0 1tnu\u{1}".utf8) + [0x80, 0xC3, 0xFF, 0xED]
        let at = random.next(text.count)
        switch random.next(4) {
        case 0: text.remove(at: at)
        case 1: text.insert(text[at], at: at)
        case 2: text[at] = interesting[random.next(interesting.count)]
        default: text.insert(interesting[random.next(interesting.count)], at: at)
        }
    }
}

/// A small seeded generator, so a failing document can be made again.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
