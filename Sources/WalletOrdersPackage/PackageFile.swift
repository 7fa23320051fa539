import Foundation
import WalletOrdersCrypto

/// A file on its way into packages, with what every package needs of it worked out once: its zip entry bytes
/// (compressed) and its manifest digests.
///
/// A template's files become these when the template loads, so building a package neither compresses nor hashes
/// them again; a per-order asset becomes one for the package that holds it.
struct PackageFile: Sendable {
    /// The file's bytes.
    let data: Data
    /// The file as the zip archive holds it.
    let body: ZipWriter.Body
    /// Manifest digests computed ahead, by algorithm.
    private let digests: [DigestAlgorithm: String]

    /// Compresses `data` with `effort` and computes its digests with each of `algorithms`.
    init(_ data: Data, effort: Deflate.Effort, digests algorithms: [DigestAlgorithm]) {
        self.data = data
        body = ZipWriter.Body(compressing: data, effort: effort)
        digests = Dictionary(uniqueKeysWithValues: algorithms.map { ($0, $0.hexDigest(data)) })
    }

    /// The file's digest for the manifest, in lowercase hex.
    func digest(_ algorithm: DigestAlgorithm) -> String {
        digests[algorithm] ?? algorithm.hexDigest(data)
    }
}
