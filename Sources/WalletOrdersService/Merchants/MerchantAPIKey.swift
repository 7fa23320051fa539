import Foundation
import WalletOrdersCrypto
import WalletOrdersStore

/// A merchant API key, `wo_live_<id>_<secret>`, or a partner's, `wo_partner_<id>_<secret>`. The prefix lets secret
/// scanners find a leaked one and says whose it is; the id (12 hex digits) names the key in listings and revocations
/// and finds it in the store; the secret is 256 random bits. Only the SHA-256 of the whole key is stored, and it is
/// shown once, when made.
public struct MerchantAPIKey: Sendable, Equatable {
    public static let prefix = "wo_live_"
    /// The prefix of a logistics partner's keys.
    public static let partnerPrefix = "wo_partner_"
    /// The key as the merchant sends it.
    public let text: String
    /// Its public part.
    public let id: String

    /// A new random key with `prefix`.
    public init(prefix: String = Self.prefix) {
        id = Random.hex(bytes: 6)
        text = "\(prefix)\(id)_\(Random.hex(bytes: 32))"
    }

    /// The key `text` reads as, when it has this form with `prefix`; nil otherwise.
    public init?(_ text: String, prefix: String = Self.prefix) {
        guard text.hasPrefix(prefix) else { return nil }
        let rest = text.dropFirst(prefix.count)
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

    /// The record the store keeps for this key of `partner`, made at `now`.
    public func record(partner: Int64, now: Date) -> PartnerKey {
        PartnerKey(id: id, partnerID: partner, hash: Self.hash(text), createdAt: now)
    }

    /// The record the store keeps for this key of `merchant`, made at `now`.
    public func record(merchant: Int64, now: Date) -> MerchantKey {
        MerchantKey(id: id, merchantID: merchant, hash: Self.hash(text), createdAt: now)
    }
}
