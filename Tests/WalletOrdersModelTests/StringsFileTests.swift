import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct StringsFileTests {
    @Test func readsQuotedPairsCommentsAndEscapes() throws {
        let text = """
            /* A block comment
               over two lines. */
            "MERCHANT_NAME" = "Example Shop";
            // A line comment
            "QUOTE" = "She said \\"hi\\"\\n\\tand left \\U00E9\\UD83D\\UDE00";
            UNQUOTED_KEY = "bare keys are allowed";
            "ALONE";
            "MERCHANT_NAME" = "The last one wins";
            """
        let file = try StringsFile(data: Data(text.utf8))
        #expect(file.keys == ["MERCHANT_NAME", "QUOTE", "UNQUOTED_KEY", "ALONE"])
        #expect(file.strings["MERCHANT_NAME"] == "The last one wins")
        #expect(file.strings["QUOTE"] == "She said \"hi\"\n\tand left é😀")
        #expect(file.strings["ALONE"] == "ALONE")
    }

    @Test func readsUTF16WithAByteOrderMarkAndUTF8WithOrWithout() throws {
        let text = "\"TITLE\" = \"Tasse en céramique\";\n"
        var littleEndian = Data([0xff, 0xfe])
        var bigEndian = Data([0xfe, 0xff])
        for unit in text.utf16 {
            littleEndian.append(contentsOf: [UInt8(unit & 0xff), UInt8(unit >> 8)])
            bigEndian.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xff)])
        }
        for data in [littleEndian, bigEndian, Data(text.utf8), Data([0xef, 0xbb, 0xbf]) + Data(text.utf8)] {
            #expect(try StringsFile(data: data).strings == ["TITLE": "Tasse en céramique"])
        }
    }

    @Test func theSampleTemplatesStringsRead() throws {
        for language in ["en", "fr"] {
            let url = SampleOrder.templateFolder.appendingPathComponent("\(language).lproj/order.strings")
            #expect(try StringsFile(data: Data(contentsOf: url)).keys.count == 5)
        }
    }

    @Test func malformedFilesSayWhereAndWhat() {
        let cases: [(String, StringsFile.ParseError)] = [
            (
                "\"A\" = \"x\";\n\"B\" = \"y\"\n\"C\" = \"z\";",
                .init(line: 3, message: "expected ; after the entry for \"B\" (line 2)")
            ),
            ("\"A\" = \"never closed;\n", .init(line: 1, message: "the string that starts here is never closed with \"")),
            ("\"A\" = ;", .init(line: 1, message: "expected the value of \"A\" in double quotes, found ;")),
            ("/* open\n\"A\" = \"x\";", .init(line: 1, message: "a /* comment is never closed")),
            ("\"A\" = \"x\";\n“B” = \"y\";", .init(line: 2, message: "expected a key in double quotes, found “")),
            ("\"A\" =", .init(line: 1, message: "the file ends in the middle of an entry")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try StringsFile(data: Data(text.utf8)) }
        }
    }

    @Test func otherEncodingsAreRefused() {
        // Latin-1 "é" is not UTF-8; UTF-16 without a byte order mark has NUL bytes.
        #expect(throws: StringsFile.ParseError(line: nil, message: "is neither UTF-8 nor UTF-16 with a byte order mark")) {
            try StringsFile(data: Data("\"A\" = \"caf".utf8) + Data([0xe9]) + Data("\";".utf8))
        }
        #expect(throws: StringsFile.ParseError(line: nil, message: "holds NUL bytes: UTF-16 text needs a byte order mark")) {
            try StringsFile(data: Data("\"A\" = \"x\";".utf16.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }))
        }
    }
}
