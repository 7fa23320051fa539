import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// What a provider token says: the APNs key's ID (`kid`), the team (`iss`) and when it was issued (`iat`).
public struct ProviderTokenClaims: Sendable, Equatable {
    public let keyID: String
    public let teamID: String
    /// Whole seconds, as the token carries it.
    public let issuedAt: Date

    public init(keyID: String, teamID: String, issuedAt: Date) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
    }

    /// The JWT's header and claims, base64url-encoded and joined by a dot: what the signature covers.
    var signingInput: String {
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"iss":"\#(teamID)","iat":\#(Int64(issuedAt.timeIntervalSince1970))}"#.utf8))
        return "\(header).\(claims)"
    }

    /// The claims of `jwt` when it is an ES256 token signed by one of `publicKeys` (by key ID); nil otherwise.
    /// Its age is not checked: that is the caller's, on every request.
    public init?(verifying jwt: String, publicKeys: [String: PublicKey]) {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard let claims = Self(unverified: jwt), let key = publicKeys[claims.keyID],
            let signature = Base64URL.decode(parts[2]),
            key.isValidES256(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return nil }
        self = claims
    }

    /// The claims of `jwt` when it is shaped as an ES256 provider token (a header naming ES256 and a key ID, claims
    /// with a team and an issue time, a signature part), without checking the signature: for a stand-in that was
    /// given no key to check it with.
    public init?(unverified jwt: String) {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            Base64URL.decode(parts[2]) != nil,
            let header = try? JSONValue.parse(headerData), let claims = try? JSONValue.parse(claimsData),
            header["alg"] == .string("ES256"), let keyID = header["kid"]?.stringValue,
            let team = claims["iss"]?.stringValue, let issuedAt = claims["iat"]?.intValue
        else { return nil }
        self.init(keyID: keyID, teamID: team, issuedAt: Date(timeIntervalSince1970: Double(issuedAt)))
    }
}
