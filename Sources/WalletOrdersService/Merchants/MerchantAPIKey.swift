import Foundation
import WalletOrdersCrypto
import WalletOrdersStore

/// A merchant API key: `wo_live_<id>_<secret>`. The prefix lets secret scanners find a leaked one; the id (12 hex
/// digits) names the key in listings and revocations and finds it in the store; the secret is 256 random bits.
/// Only the SHA-256 of the whole key is stored, and it is shown once, when made.
public struct MerchantAPIKey: Sendable, Equatable {
    public static let prefix = "wo_live_"
    /// The key as the merchant sends it.
    public let text: String
    /// Its public part.
    public let id: String

    /// A new random key.
    public init() {
        id = Random.hex(bytes: 6)
        text = "\(Self.prefix)\(id)_\(Random.hex(bytes: 32))"
    }

    /// The key `text` reads as, when it has this form; nil otherwise.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let rest = text.dropFirst(Self.prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        let id = rest[..<separator]
        guard id.count == 12, id.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        self.text = text
        self.id = String(id)
    }

    /// What the store keeps of a key: SHA-256 of its UTF-8 bytes.
    public static func hash(_ text: String) -> Data {
        Data(DigestAlgorithm.sha256.digest(Data(text.utf8)))
    }

    /// The record the store keeps for this key of `merchant`, made at `now`.
    public func record(merchant: Int64, now: Date) -> MerchantKey {
        MerchantKey(id: id, merchantID: merchant, hash: Self.hash(text), createdAt: now)
    }
}
