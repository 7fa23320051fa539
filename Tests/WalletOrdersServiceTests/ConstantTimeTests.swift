import Foundation
import Testing
import WalletOrdersService

@Suite(.timeLimit(.minutes(5))) struct ConstantTimeTests {
    @Test func secretsOfDifferentLengthsNeverMatchEvenWhenTheExtraBytesAreNUL() {
        let key = "operator-key"
        #expect(ConstantTime.equals(key, key))
        #expect(!ConstantTime.equals(key, key + String(repeating: "\u{0}", count: 256)))
        #expect(!ConstantTime.equals(key + String(repeating: "\u{0}", count: 512), key))
        #expect(!ConstantTime.equals(Data([1, 2]), Data([1, 2] + [UInt8](repeating: 0, count: 256))))
        #expect(!ConstantTime.equals("operator-kez", key))
    }
}
