import Foundation
// WalletOrdersCrypto is not a product of wallet-orders; it is built as WalletOrdersPackage's dependency and its
// module is visible beside it, which is all a fuzz target needs to sign manifests.
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// A development chain made once per process: every input is signed by it, so the verifier gets past the
/// signature to the order, the manifest and the localizations.
let chain = try! DevelopmentChain(orderTypeIdentifier: "order.com.example.fuzz", teamIdentifier: "FUZZ123456")
let signingTime = Date(timeIntervalSince1970: 1_795_342_530)

/// One input: the files of a package, each as its name, a NUL byte, its length (4 bytes, big-endian; a length
/// past the end takes what is left) and its bytes.
///
/// Unless the input holds its own, a manifest.json with the real SHA-256 digests and a signature by the
/// development chain are added, then the files are zipped as the builder zips them and verified. Properties
/// besides not crashing: a package the verifier finds valid has an order that validates, and every file named in
/// its manifest is in it.
func fuzzPackageFiles(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let input = UnsafeBufferPointer(start: bytes, count: count)
    var files: [String: Data] = [:]
    var order: [String] = []
    var index = 0
    while index < count, let end = input[index...].firstIndex(of: 0), end + 4 < count {
        let name = String(decoding: input[index..<end], as: UTF8.self)
        let length = input[(end + 1)...(end + 4)].reduce(0) { $0 << 8 | Int($1) }
        let start = end + 5
        let stop = start + min(length, count - start)
        if !name.isEmpty, files[name] == nil {
            files[name] = Data(input[start..<stop])
            order.append(name)
        }
        index = stop
    }
    guard files.count <= 64 else { return 0 }
    if files["manifest.json"] == nil {
        var manifest: [String: JSONValue] = [:]
        for (path, data) in files where path != "signature" {
            manifest[path] = .string(DigestAlgorithm.sha256.hexDigest(data))
        }
        files["manifest.json"] = JSONValue.object(manifest).serialized(pretty: true)
        order.append("manifest.json")
    }
    if files["signature"] == nil {
        files["signature"] = try! CMSSignature.sign(
            files["manifest.json"]!,
            certificate: chain.orderTypeCertificate,
            key: chain.orderTypeKey,
            chain: [chain.wwdr],
            signingTime: signingTime
        )
        order.append("signature")
    }
    guard
        let package = try? ZipArchive.write(
            order.map { ZipArchive.Entry(path: $0, data: files[$0]!) },
            modified: signingTime
        )
    else { return 0 }
    let report = PackageVerifier.verify(package, trustedRoots: [chain.root])
    if report.isValid {
        let document = try! OrderDocument(data: files["order.json"]!)
        precondition(document.problems(files: Set(files.keys)).isEmpty, "a valid package holds an invalid order")
        let manifest = try! JSONValue.parse(files["manifest.json"]!).objectValue!
        precondition(manifest.keys.allSatisfy { files[$0] != nil }, "a valid package lacks a file its manifest names")
    }
    return 0
}
