import Foundation
import NIOConcurrencyHelpers
import WalletOrdersCrypto
import WalletOrdersModel

/// What a provider token says once its ES256 signature checked out.
struct ProviderTokenClaims: Sendable {
    let keyID: String
    let teamID: String
    let issuedAt: Date
}

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

    private let publicKeys: [String: PublicKey]
    private let state = NIOLockedValueBox(State())

    init(publicKeys: [String: PublicKey]) {
        self.publicKeys = publicKeys
    }

    /// How many tokens had their signature checked.
    var verifications: Int { state.withLockedValue { $0.verifications } }

    /// The token's claims when its signature checks out with a known key; nil otherwise (remembered too).
    func claims(_ jwt: String) -> ProviderTokenClaims? {
        if let known = state.withLockedValue({ $0.tokens[jwt] }) { return known }
        let claims = verify(jwt)
        state.withLockedValue { state in
            if state.tokens.count >= Self.capacity { state.tokens.removeAll(keepingCapacity: true) }
            state.tokens[jwt] = .some(claims)
            state.verifications += 1
        }
        return claims
    }

    private func verify(_ jwt: String) -> ProviderTokenClaims? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONValue.parse(headerData), let claims = try? JSONValue.parse(claimsData),
              header["alg"] == .string("ES256"), let keyID = header["kid"]?.stringValue,
              let key = publicKeys[keyID],
              key.isValidES256(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
              let team = claims["iss"]?.stringValue, let issuedAt = claims["iat"]?.intValue
        else { return nil }
        return ProviderTokenClaims(keyID: keyID, teamID: team, issuedAt: Date(timeIntervalSince1970: Double(issuedAt)))
    }
}
