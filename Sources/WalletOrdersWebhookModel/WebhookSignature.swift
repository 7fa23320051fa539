import Foundation
import WalletOrdersCrypto

/// Signatures as the Standard Webhooks specification defines them, so that merchants verify deliveries with its
/// libraries: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the secret's bytes, base64, after
/// `v1,`. A secret is `whsec_` and the base64 of its bytes.
public enum WebhookSignature {
    /// What the secrets of a new endpoint start with.
    public static let secretPrefix = "whsec_"

    /// A new secret: 32 random bytes.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return secretPrefix + Data(bytes).base64EncodedString()
    }

    /// The `webhook-signature` header: one `v1,` signature per secret, space-separated (two while a rotated-out
    /// secret still signs).
    public static func header(id: String, timestamp: Int64, body: Data, secrets: [String]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return secrets.compactMap { secret in
            guard let key = key(of: secret) else { return nil }
            return "v1," + Data(HMACSHA256.code(key: key, message: message)).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The bytes of a `whsec_` secret; nil when it is not one.
    static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix), let data = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count)))
        else { return nil }
        return Array(data)
    }
}
