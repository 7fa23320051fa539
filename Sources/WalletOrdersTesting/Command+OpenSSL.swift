import Foundation

extension Command {
    /// Checks a package's signature with the `openssl` command, not with our own code: unzips `package` with `unzip`
    /// and runs `openssl cms -verify` on its signature over its manifest.json, chained to the root at `rootPath`.
    /// The result is openssl's (status 0 when the signature verifies).
    public static func verifySignature(ofPackage package: Data, rootPath: String) async throws -> Result {
        let folder = try TemporaryDirectory("openssl-verify")
        let zip = try folder.write("package.order", package)
        let unzipped = try await run("unzip", ["-q", zip, "-d", folder.path("files")])
        guard unzipped.status == 0 else { return unzipped }
        return try await run(
            "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", folder.path("files/signature"),
                "-content", folder.path("files/manifest.json"), "-CAfile", rootPath, "-purpose", "any", "-out", "/dev/null",
            ]
        )
    }

    /// The base64 HMAC-SHA256 of `body` under the UTF-8 bytes of `secret`, by `openssl dgst`: what Shopify and
    /// WooCommerce send. Throws when openssl fails.
    public static func hmacSHA256Base64(_ body: [UInt8], secret: String) async throws -> String {
        let hex = Array(secret.utf8).map { String(format: "%02x", $0) }.joined()
        let signed = try await run(
            "/bin/sh",
            ["-c", "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(hex) -binary | openssl base64 -A"],
            input: Data(body)
        )
        guard signed.status == 0 else { throw OpenSSLFailure(description: signed.error) }
        return signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the `openssl` command wrote when it failed.
    public struct OpenSSLFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
