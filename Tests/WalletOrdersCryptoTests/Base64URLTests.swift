import Foundation
import Testing
import WalletOrdersCrypto

/// Base64url written from the bytes says what Foundation's base64 says, with `-` and `_` and no padding, for every
/// length and byte, and reads back.
@Suite(.timeLimit(.minutes(1))) struct Base64URLTests {
    @Test func encodingAgreesWithFoundationsAndDecodesBack() throws {
        #expect(Base64URL.encode(Data()) == "")
        #expect(Base64URL.encode(Data("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Data("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Data("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Data([0xfb, 0xff, 0xbf])) == "-_-_")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(data)
            #expect(encoded == expected, "\(length) bytes")
            #expect(Base64URL.decode(Substring(encoded)) == data)
        }
    }
}
