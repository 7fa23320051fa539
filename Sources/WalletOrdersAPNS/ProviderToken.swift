import Foundation
import Synchronization
import WalletOrdersCrypto

/// The APNs provider token: an ES256 JWT made with the `.p8` key, reused for 20 to 60 minutes.
///
/// APNs answers 429 `TooManyProviderTokenUpdates` to tokens renewed more often than every 20 minutes and 403
/// `ExpiredProviderToken` to tokens older than an hour, so a token is renewed at 50 minutes, or on an
/// `ExpiredProviderToken` once it is at least 20 minutes old.
///
/// A token's age is the longer of what the monotonic clock counted since it was issued and what `now` says: a
/// step back of the wall clock neither keeps a token past its hour nor throws a fresh one away as issued in the
/// future. (Before, a step back of any size renewed the token at once, and its `iat` was then the stepped clock's.)
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
    private let cached = Mutex<Issued?>(nil)

    private struct Issued {
        let token: String
        let issuedAt: Date
        let instant: ContinuousClock.Instant

        /// How old the token is at `time`: the longer of the two clocks' counts.
        func age(at time: Date) -> TimeInterval {
            let counted = (ContinuousClock.now - instant).components
            return max(time.timeIntervalSince(issuedAt), Double(counted.seconds) + Double(counted.attoseconds) / 1e18)
        }
    }

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
            if let current = cached, current.age(at: time) < Self.renewalAge { return current.token }
            let token = try issue(at: time)
            cached = Issued(token: token, issuedAt: time, instant: .now)
            return token
        }
    }

    /// Called when APNs rejected `token` as expired: renews it if it is still the current one and old enough,
    /// and says whether a retry will carry a different token.
    public func renew(afterRejecting token: String) throws -> Bool {
        try cached.withLock { cached in
            let time = now()
            guard let current = cached, current.token == token else { return true }
            guard current.age(at: time) >= Self.minimumAge else { return false }
            cached = Issued(token: try issue(at: time), issuedAt: time, instant: .now)
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
