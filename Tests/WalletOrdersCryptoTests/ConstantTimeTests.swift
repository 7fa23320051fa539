import Foundation
import Testing
import WalletOrdersCrypto

@Suite(.timeLimit(.minutes(5))) struct ConstantTimeTests {
    @Test func secretsOfDifferentLengthsNeverMatchEvenWhenTheExtraBytesAreNUL() {
        let key = "operator-key"
        #expect(ConstantTime.equals(key, key))
        #expect(!ConstantTime.equals(key, key + String(repeating: "\u{0}", count: 256)))
        #expect(!ConstantTime.equals(key + String(repeating: "\u{0}", count: 512), key))
        #expect(!ConstantTime.equals(Data([1, 2]), Data([1, 2] + [UInt8](repeating: 0, count: 256))))
        #expect(!ConstantTime.equals("operator-kez", key))
    }

    /// The digest a key is remembered by: the first 16 bytes of its SHA-256 (FIPS 180-2's example for "abc"), as hex.
    @Test func aDigestIsTheFirstHalfOfTheSHA256InHex() {
        #expect(ConstantTime.digest("abc") == "ba7816bf8f01cfea414140de5dae2223")
        #expect(ConstantTime.digest("") == "e3b0c44298fc1c149afbf4c8996fb924")
    }
}
