import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// A public key a UCP business signs its webhooks with, as its profile publishes it (a JWK in `keys`) or as an operator
/// pastes it (PEM). UCP requires verifiers to take ES256 (ECDSA P-256, SHA-256) and allows Ed25519; a key of any other
/// kind is refused when it is read, so no signature can name an algorithm this service does not check.
public struct UCPSigningKey: Sendable {
    /// The algorithms taken, by their names in RFC 9421's registry (what a signature's `alg` parameter says).
    public enum Algorithm: String, Sendable, CaseIterable {
        case es256 = "ecdsa-p256-sha256"
        case ed25519
    }

    /// Why a key cannot be used, in words for the operator.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The key's `kid`, which a signature's `keyid` names; nil for a key taken as PEM without one, which any `keyid`
    /// may name.
    public let id: String?
    public let algorithm: Algorithm
    let key: PublicKey

    /// A JWK (RFC 7517): `{"kty": "EC", "crv": "P-256", "x", "y"}` or `{"kty": "OKP", "crv": "Ed25519", "x"}`, with its
    /// `kid`. A key for encryption (`"use": "enc"`) is refused.
    public init(jwk: JSONValue) throws(Problem) {
        guard let object = jwk.objectValue else { throw Problem(description: "a JWK is a JSON object") }
        if let use = object["use"]?.stringValue, use != "sig" { throw Problem(description: "the key is not for signatures (use \(use.prefix(16)))") }
        let id = object["kid"]?.stringValue
        guard id.map({ !$0.isEmpty && $0.utf8.count <= 256 }) ?? true else { throw Problem(description: "kid must be 1 to 256 characters") }
        func coordinate(_ name: String) throws(Problem) -> Data {
            guard let text = object[name]?.stringValue, text.utf8.count <= 64, let bytes = Base64URL.decode(Substring(text)), bytes.count == 32
            else { throw Problem(description: "\(name) must be 32 bytes in base64url") }
            return bytes
        }
        let der: Data
        let algorithm: Algorithm
        switch (object["kty"]?.stringValue, object["crv"]?.stringValue) {
        case ("EC", "P-256"):
            der = Self.p256Prefix + [0x04] + (try coordinate("x")) + (try coordinate("y"))
            algorithm = .es256
        case ("OKP", "Ed25519"):
            der = Self.ed25519Prefix + (try coordinate("x"))
            algorithm = .ed25519
        default:
            throw Problem(description: "only EC P-256 (ES256) and OKP Ed25519 keys are taken")
        }
        try self.init(der: der, id: id, algorithm: algorithm)
    }

    /// A PEM public key (`BEGIN PUBLIC KEY`), P-256 or Ed25519, with the `kid` signatures name it by, if any.
    public init(pem: String, id: String? = nil) throws(Problem) {
        let key: PublicKey
        do {
            key = try PublicKey(pem: Data(pem.utf8))
        } catch {
            throw Problem(description: "no PEM public key found")
        }
        guard let algorithm: Algorithm = key.isP256 ? .es256 : key.isEd25519 ? .ed25519 : nil else {
            throw Problem(description: "only P-256 (ES256) and Ed25519 keys are taken")
        }
        self.init(id: id, algorithm: algorithm, key: key)
    }

    private init(der: Data, id: String?, algorithm: Algorithm) throws(Problem) {
        let key: PublicKey
        do {
            key = try PublicKey(der: der)
        } catch {
            throw Problem(description: "the key's coordinates are not a point on its curve")
        }
        guard algorithm == .es256 ? key.isP256 : key.isEd25519 else { throw Problem(description: "the key is not of its kty and crv") }
        self.init(id: id, algorithm: algorithm, key: key)
    }

    private init(id: String?, algorithm: Algorithm, key: PublicKey) {
        self.id = id
        self.algorithm = algorithm
        self.key = key
    }

    /// The signing keys a UCP profile (`/.well-known/ucp`, as JSON) publishes in `keys` (or, in older profiles,
    /// `signing_keys`), at its top level or under `ucp`: those this service can check, the others skipped as UCP asks.
    public static func keys(inProfile profile: JSONValue) -> [UCPSigningKey] {
        let places = [profile, profile["ucp"] ?? .null]
        let jwks = places.flatMap { place in
            ["keys", "signing_keys"].flatMap { ShopField.array(place[$0], limit: 16) }
        }
        return jwks.prefix(16).compactMap { try? UCPSigningKey(jwk: $0) }
    }

    /// Whether `signature` is this key's signature of `message`: raw `r ‖ s` (64 bytes) for ES256, RFC 8032's 64 bytes
    /// for Ed25519. DER-encoded ECDSA signatures are refused, as UCP says.
    func isValid(_ signature: Data, for message: Data) -> Bool {
        switch algorithm {
        case .es256: signature.count == 64 && key.isValidES256(signature, for: message)
        case .ed25519: key.isValidEd25519(signature, for: message)
        }
    }

    /// The DER SubjectPublicKeyInfo before an uncompressed P-256 point (RFC 5480).
    private static let p256Prefix = Data([
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D,
        0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ])
    /// The DER SubjectPublicKeyInfo before an Ed25519 key (RFC 8410).
    private static let ed25519Prefix = Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00])
}
