import Foundation
import Synchronization
import WalletOrdersCrypto

/// The APNs provider token: an ES256 JWT made with the `.p8` key, reused for 20 to 60 minutes.
///
/// APNs answers 429 `TooManyProviderTokenUpdates` to tokens renewed more often than every 20 minutes and 403
/// `ExpiredProviderToken` to tokens older than an hour, so a token is renewed at 50 minutes, or on an
/// `ExpiredProviderToken` once it is at least 20 minutes old.
public final class ProviderToken: Sendable {
    /// A token younger than this is never replaced.
    public static let minimumAge: TimeInterval = 20 * 60
    /// A token this old is replaced before APNs would call it expired.
    public static let renewalAge: TimeInterval = 50 * 60
    /// APNs refuses a token older than this (`ExpiredProviderToken`).
    public static let lifetime: TimeInterval = 60 * 60

    private let key: PrivateKey
    private let keyID: String
    private let teamID: String
    private let now: @Sendable () -> Date
    private let cached = Mutex<(token: String, issuedAt: Date)?>(nil)

    /// A provider for `key`, whose 10-character ID is `keyID`, in team `teamID`.
    public init(key: PrivateKey, keyID: String, teamID: String, now: @escaping @Sendable () -> Date = Date.init) throws {
        guard key.isP256 else { throw CryptoError.notP256 }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.now = now
    }

    /// The token to send now.
    public func current() throws -> String {
        try cached.withLock { cached in
            let time = now()
            if let current = cached, time.timeIntervalSince(current.issuedAt) < Self.renewalAge, time >= current.issuedAt {
                return current.token
            }
            let token = try issue(at: time)
            cached = (token, time)
            return token
        }
    }

    /// Called when APNs rejected `token` as expired: renews it if it is still the current one and old enough,
    /// and says whether a retry will carry a different token.
    public func renew(afterRejecting token: String) throws -> Bool {
        try cached.withLock { cached in
            let time = now()
            guard let current = cached, current.token == token else { return true }
            guard time.timeIntervalSince(current.issuedAt) >= Self.minimumAge else { return false }
            cached = (try issue(at: time), time)
            return true
        }
    }

    private func issue(at time: Date) throws -> String {
        let claims = ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: time)
        let signingInput = claims.signingInput
        let signature = try key.signES256(Data(signingInput.utf8))
        return "\(signingInput).\(Base64URL.encode(signature))"
    }
}
