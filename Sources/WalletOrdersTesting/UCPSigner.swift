import Foundation
import WalletOrdersModel

/// A UCP business's signing key, made and used by the `openssl` command: `openssl genpkey` makes it, `openssl dgst` (ES256)
/// or `openssl pkeyutl` (Ed25519) signs with it, and its public half is published as a JWK the way a profile does.
public struct UCPSigner: Sendable {
    public enum Kind: Sendable { case es256, ed25519 }

    public let kind: Kind
    public let kid: String
    private let folder: TemporaryDirectory

    public static func make(_ kind: Kind, kid: String = "merchant-2026") async throws -> UCPSigner {
        let folder = try TemporaryDirectory("ucp-signer")
        let arguments =
            kind == .es256
            ? ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.path("key.pem")]
            : ["genpkey", "-algorithm", "ED25519", "-out", folder.path("key.pem")]
        let made = try await Command.run("openssl", arguments)
        try Self.check(made.status == 0, "\(made.error)")
        return UCPSigner(kind: kind, kid: kid, folder: folder)
    }

    /// The public key as PEM.
    public func publicKeyPEM() async throws -> String {
        let result = try await Command.run("openssl", ["pkey", "-in", folder.path("key.pem"), "-pubout"])
        try Self.check(result.status == 0, "\(result.error)")
        return result.output
    }

    /// The public key as the JWK a UCP profile's `keys` holds.
    public func jwk() async throws -> JSONValue {
        let der = try await Command.run("/bin/sh", ["-c", "openssl pkey -in '\(folder.path("key.pem"))' -pubout -outform DER | openssl base64 -A"])
        try Self.check(der.status == 0, "\(der.error)")
        let bytes = [UInt8](
            try Self.unwrap(Data(base64Encoded: der.output.trimmingCharacters(in: .whitespacesAndNewlines)), "openssl wrote no base64")
        )
        switch kind {
        case .es256:
            // SubjectPublicKeyInfo ends with the uncompressed point 04 ‖ x ‖ y.
            let point = bytes.suffix(64)
            return .object([
                "kid": .string(kid), "kty": .string("EC"), "crv": .string("P-256"), "use": .string("sig"), "alg": .string("ES256"),
                "x": .string(Self.base64URL(point.prefix(32))), "y": .string(Self.base64URL(point.suffix(32))),
            ])
        case .ed25519:
            return .object([
                "kid": .string(kid), "kty": .string("OKP"), "crv": .string("Ed25519"), "use": .string("sig"), "alg": .string("EdDSA"),
                "x": .string(Self.base64URL(bytes.suffix(32))),
            ])
        }
    }

    /// The signature of `base`, as RFC 9421 carries it: raw `r ‖ s` for ES256 (openssl writes DER, converted here),
    /// RFC 8032's bytes for Ed25519.
    public func sign(_ base: String) async throws -> Data {
        let input = try folder.write("base", Data(base.utf8))
        let arguments =
            kind == .es256
            ? ["dgst", "-sha256", "-sign", folder.path("key.pem"), "-out", folder.path("sig"), input]
            : ["pkeyutl", "-sign", "-inkey", folder.path("key.pem"), "-rawin", "-in", input, "-out", folder.path("sig")]
        let signed = try await Command.run("openssl", arguments)
        try Self.check(signed.status == 0, "\(signed.error)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path("sig"))))
        return kind == .es256 ? try Self.raw(fromDER: bytes) : Data(bytes)
    }

    /// `SEQUENCE { INTEGER r, INTEGER s }` as `r ‖ s`, each 32 bytes.
    private static func raw(fromDER der: [UInt8]) throws -> Data {
        var index = 2
        if der[1] & 0x80 != 0 { index += Int(der[1] & 0x7F) }
        var out: [UInt8] = []
        for _ in 0..<2 {
            try check(der[index] == 0x02, "openssl wrote no DER INTEGER")
            let length = Int(der[index + 1])
            var integer = Array(der[(index + 2)..<(index + 2 + length)])
            while integer.count > 32, integer.first == 0 { integer.removeFirst() }
            out += [UInt8](repeating: 0, count: 32 - integer.count) + integer
            index += 2 + length
        }
        return Data(out)
    }

    private static func base64URL<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What openssl did not do.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: message()) }
    }

    private static func unwrap<T>(_ value: T?, _ message: String) throws -> T {
        guard let value else { throw Failure(description: message) }
        return value
    }
}
