import Foundation
import NIOConcurrencyHelpers
import WalletOrdersAPNS
import WalletOrdersCrypto

/// Provider tokens (JWTs) by their exact text, each one's signature checked once: APNs accepts a token for up to
/// an hour, so a provider sends the same string thousands of times, and an ES256 verification costs far more than
/// the rest of a request. The age is not cached: the caller checks it on every request.
final class ProviderTokenCache: Sendable {
    /// A provider renews its token every 20 to 60 minutes; this many distinct tokens is far more than a test or
    /// a sandbox sees, and bounds the memory a client sending garbage can take.
    static let capacity = 1_024

    private struct State {
        var tokens: [String: ProviderTokenClaims?] = [:]
        var verifications = 0
    }

    /// Nil: signatures are not checked, any well-formed ES256 token is taken at its word.
    private let publicKeys: [String: PublicKey]?
    private let state = NIOLockedValueBox(State())

    init(publicKeys: [String: PublicKey]?) {
        self.publicKeys = publicKeys
    }

    /// How many tokens had their signature checked.
    var verifications: Int { state.withLockedValue { $0.verifications } }

    /// The token's claims when its signature checks out with a known key (or, with no keys, when it is well formed);
    /// nil otherwise (remembered too).
    func claims(_ jwt: String) -> ProviderTokenClaims? {
        if let known = state.withLockedValue({ $0.tokens[jwt] }) { return known }
        let claims =
            publicKeys.map { ProviderTokenClaims(verifying: jwt, publicKeys: $0) } ?? ProviderTokenClaims(unverified: jwt)
        state.withLockedValue { state in
            if state.tokens.count >= Self.capacity { state.tokens.removeAll(keepingCapacity: true) }
            state.tokens[jwt] = .some(claims)
            state.verifications += 1
        }
        return claims
    }
}
