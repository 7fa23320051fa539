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
}
