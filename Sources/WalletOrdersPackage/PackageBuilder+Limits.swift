import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// The limits `PackageVerifier` reads a package within, kept by every package the builder signs: a package the
/// service serves must pass the service's own `verify`, and the number and size of the files bound the work a
/// write asks for (compressing, hashing, checking localizations) before any of it is done.
extension PackageBuilder {
    /// The limits of `ZipArchive.inspect`, which `PackageVerifier.verify` applies: entries, bytes per file and in
    /// all, compression ratio.
    public static let limits = ZipArchive.ReadingLimits.package

    /// The files the builder writes besides the template's and the order's: order.json, manifest.json, signature.
    static let ownFiles = 3

    /// Room for a signature besides its certificates: the headers, the three signed attributes, the signer's issuer
    /// and serial number, and a signature value of at most 512 bytes (RSA-4096).
    static let signatureAllowance = 4_096

    /// Why a file of `bytes` cannot go into a package, or nil when it can.
    static func fileSizeProblem(_ bytes: Int) -> String? {
        guard bytes > limits.maxEntryBytes else { return nil }
        return "is \(bytes) bytes; a file in a package may have at most \(limits.maxEntryBytes) (8 MiB), the most "
            + "verify reads"
    }

    /// What keeps a package of an order.json of `orderBytes` and `files` (the template's and the assets, by path)
    /// within `limits`, before anything is compressed: the number of entries, each file's size, and the bytes of them
    /// all, order.json, manifest.json and signature included. The compression ratio needs the compressed bytes, so
    /// `checkCompression` sees to it.
    func limitProblems(orderBytes: Int, files: [String: Data], templateFiles: Int) -> [OrderProblem] {
        let limits = Self.limits
        let entries = files.count + Self.ownFiles
        guard entries <= limits.maxEntries else {
            return [
                OrderProblem(
                    path: "assets",
                    message: "would make a package of \(entries) files (order.json, manifest.json, signature and the "
                        + "template's \(templateFiles) among them); a package may hold at most \(limits.maxEntries), "
                        + "the most verify reads"
                )
            ]
        }
        var problems: [OrderProblem] = []
        // Assets were held to the size of a file as they came in; the template's files are held to it here.
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            if let problem = Self.fileSizeProblem(data.count) { problems.append(OrderProblem(path: path, message: problem)) }
        }
        if let problem = Self.fileSizeProblem(orderBytes) {
            problems.append(OrderProblem(path: "", message: "order.json \(problem)"))
        }
        let total =
            files.values.reduce(0) { $0 + $1.count } + orderBytes + manifestSize(paths: files.keys)
            + identity.signer.certificateSet.count + Self.signatureAllowance
        if total > limits.maxTotalBytes {
            problems.append(
                OrderProblem(
                    path: "assets",
                    message: "would make a package of \(total) bytes uncompressed (order.json, manifest.json and "
                        + "signature included); a package may hold at most \(limits.maxTotalBytes) (16 MiB), the most "
                        + "verify reads"
                )
            )
        }
        return problems
    }

    /// The size of the manifest of a package of order.json and `paths`: its digests are all as long, so
    /// placeholders give it exactly without hashing anything.
    private func manifestSize(paths: some Sequence<String>) -> Int {
        let placeholder = JSONValue.string(String(repeating: "0", count: digest.hexLength))
        var manifest: [String: JSONValue] = ["order.json": placeholder]
        for path in paths { manifest[path] = placeholder }
        return JSONValue.object(manifest).serialized(pretty: true).count
    }

    /// Refuses, before signing, a package whose order.json or files compress past the ratio `verify` takes for a
    /// zip bomb: a file of more than 1 MiB that deflates more than 100 to 1. An asset is named as such, a template
    /// file as the template's.
    func checkCompression(_ contents: Contents, assets: [String: Data]) throws {
        let limits = Self.limits
        func problem(_ file: PackageFile) -> String? {
            let body = file.body
            guard body.size > limits.ratioThreshold, body.size > max(body.bytes.count, 1) * limits.maxRatio else { return nil }
            return "deflates from \(body.size) to \(body.bytes.count) bytes, more than \(limits.maxRatio) to 1: verify "
                + "takes a file of more than \(limits.ratioThreshold) bytes that compresses so well for a zip bomb"
        }
        if let problem = problem(contents.order) {
            throw PackageError.invalidOrder([OrderProblem(path: "", message: "order.json \(problem)")])
        }
        for (path, file) in contents.files.sorted(by: { $0.key < $1.key }) {
            guard let problem = problem(file) else { continue }
            throw assets[path] == nil
                ? PackageError.template("\(path): \(problem)") : PackageError.invalidAsset(path: path, problem: problem)
        }
    }
}
