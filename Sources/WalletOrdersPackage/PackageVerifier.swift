import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// What checking a package found.
public struct PackageReport: Sendable {
    /// Everything wrong, one sentence each; empty when the package is good.
    public var problems: [String] = []
    /// What Wallet reads but not on every device (objects newer than iOS 16, deprecated fields, plain-http links),
    /// one sentence each; warnings do not make a package invalid.
    public var warnings: [String] = []
    /// The package's size in bytes.
    public var bytes = 0
    /// The files in the package, in archive order.
    public var files: [String] = []
    /// The digest the manifest uses, when it could be told.
    public var digest: DigestAlgorithm?
    /// The signer's subject, when the signature could be read.
    public var signer: String?
    /// The signing-time attribute.
    public var signingTime: Date?
    /// Whether the signer's chain was checked up to a trusted root.
    public var chainChecked = false
    /// The order's type and identifier, when order.json could be read.
    public var orderTypeIdentifier: String?
    public var orderIdentifier: String?

    /// Whether nothing is wrong.
    public var isValid: Bool { problems.isEmpty }
}

/// Checks `.order` packages the way Wallet would, and says everything that is wrong.
public enum PackageVerifier {
    /// Checks zip layout, manifest digests, signature and chain, certificate/type match, order.json validity,
    /// referenced files, localizations and size; warns about what older devices will not show.
    ///
    /// With `trustedRoots`, the signer must chain to one of them through the certificates in the signature;
    /// without, the signature is checked against the signer's own certificate only.
    ///
    /// `allowHTTPWebService` accepts a plain-http `webServiceURL`, which only a development server writes.
    ///
    /// The package may come from anywhere: it is read within `ZipArchive.ReadingLimits.package`, and an archive
    /// that is hostile (a zip bomb, too many entries, paths out of the package, links, encryption) or broken gets
    /// its problems and is looked into no further. A package larger than `maxInspectedBytes` is not read at all.
    public static func verify(
        _ package: Data,
        trustedRoots: [Certificate]? = nil,
        allowHTTPWebService: Bool = false
    ) -> PackageReport {
        var report = PackageReport()
        report.bytes = package.count
        if package.count >= PackageBuilder.maxPackageBytes {
            report.problems.append(sizeProblem(package.count))
        }
        guard package.count <= maxInspectedBytes else { return report }
        let contents = ZipArchive.inspect(package)
        report.files = contents.entries.map(\.path)
        guard contents.problems.isEmpty else {
            // An archive that is hostile or broken is not looked into any further.
            report.problems += contents.problems
            return report
        }
        let files = Dictionary(contents.entries.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first })
        for entry in contents.entries where !PackagePath.reserved.contains(entry.path) {
            let path = entry.path
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: entry.data) {
                report.problems.append("\(path): \(problem)")
            }
        }
        guard let orderData = files["order.json"] else {
            report.problems.append("order.json is missing")
            return report
        }
        checkOrder(orderData, files: Set(files.keys), allowHTTPWebService: allowHTTPWebService, into: &report)
        for problem in Localizations.problems(in: files) {
            report.problems.append("\(problem)")
        }
        guard let manifestData = files["manifest.json"] else {
            report.problems.append("manifest.json is missing")
            return report
        }
        checkManifest(manifestData, files: files, into: &report)
        guard let signature = files["signature"] else {
            report.problems.append("signature is missing")
            return report
        }
        checkSignature(signature, manifest: manifestData, trustedRoots: trustedRoots, into: &report)
        return report
    }

    /// The largest file looked into: four times Wallet's limit, so that a package a little too large still gets
    /// every other problem listed, while a huge file is refused on its size alone without being read.
    public static let maxInspectedBytes = 4 * PackageBuilder.maxPackageBytes

    /// Checks the package in the file at `path` as `verify(_:trustedRoots:allowHTTPWebService:)` does, reading
    /// no more than `maxInspectedBytes` of it (a larger file gets its size problem alone).
    public static func verify(
        fileAt path: String,
        trustedRoots: [Certificate]? = nil,
        allowHTTPWebService: Bool = false
    ) throws -> PackageReport {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PackageError.failed("\(path): cannot read the file")
        }
        defer { try? handle.close() }
        let size = Int(clamping: try handle.seekToEnd())
        guard size <= maxInspectedBytes else { return tooLargeToInspect(size) }
        try handle.seek(toOffset: 0)
        // Read one byte past the limit: a file that grows (or a device that never ends) is still bounded.
        let data = try handle.read(upToCount: maxInspectedBytes + 1) ?? Data()
        guard data.count <= maxInspectedBytes else { return tooLargeToInspect(data.count) }
        return verify(data, trustedRoots: trustedRoots, allowHTTPWebService: allowHTTPWebService)
    }

    private static func tooLargeToInspect(_ bytes: Int) -> PackageReport {
        var report = PackageReport()
        report.bytes = bytes
        report.problems.append(
            sizeProblem(bytes) + " (the file is not looked into: it is larger than "
                + "\(maxInspectedBytes) bytes)"
        )
        return report
    }

    private static func sizeProblem(_ bytes: Int) -> String {
        "the package is \(bytes) bytes; Wallet accepts packages below \(PackageBuilder.maxPackageBytes) bytes"
    }

    private static func checkOrder(
        _ data: Data,
        files: Set<String>,
        allowHTTPWebService: Bool,
        into report: inout PackageReport
    ) {
        guard let order = try? OrderDocument(data: data) else {
            report.problems.append("order.json is not a JSON object")
            return
        }
        report.orderTypeIdentifier = order.orderTypeIdentifier
        report.orderIdentifier = order.orderIdentifier
        let validation = order.validate(files: files, allowHTTPWebService: allowHTTPWebService)
        report.problems += validation.problems.map { "order.json \($0)" }
        report.warnings += validation.warnings.map { "order.json \($0)" }
    }

    private static func checkManifest(_ data: Data, files: [String: Data], into report: inout PackageReport) {
        guard let manifest = (try? JSONValue.parse(data))?.objectValue else {
            report.problems.append("manifest.json is not a JSON object")
            return
        }
        // The digest is whichever of SHA-256 and SHA-1 most entries are shaped like; the others are reported.
        let lengths = manifest.values.compactMap { $0.stringValue?.count }
        let digest = DigestAlgorithm.allCases.max { a, b in
            lengths.filter { $0 == a.hexLength }.count < lengths.filter { $0 == b.hexLength }.count
        }.flatMap { lengths.contains($0.hexLength) ? $0 : nil }
        report.digest = digest
        for (path, data) in files.sorted(by: { $0.key < $1.key }) where path != "manifest.json" && path != "signature" {
            guard let listed = manifest[path]?.stringValue else {
                report.problems.append("\(path) is not listed in manifest.json")
                continue
            }
            guard let digest, listed.count == digest.hexLength else {
                report.problems.append("\(path) has a digest in manifest.json that is not SHA-256 or SHA-1 hex")
                continue
            }
            if listed.lowercased() != digest.hexDigest(data) {
                report.problems.append("\(path) does not match its digest in manifest.json")
            }
        }
        for path in manifest.keys.sorted() where files[path] == nil {
            report.problems.append("manifest.json lists \(path), which is not in the package")
        }
    }

    private static func checkSignature(
        _ signature: Data,
        manifest: Data,
        trustedRoots: [Certificate]?,
        into report: inout PackageReport
    ) {
        let info: CMSSignedInfo
        do {
            info = try CMSSignature.verify(signature, content: manifest, trustedRoots: trustedRoots)
        } catch let error as CryptoError {
            report.problems.append("signature: \(error.operation)")
            return
        } catch {
            report.problems.append("signature: \(error)")
            return
        }
        report.chainChecked = trustedRoots != nil
        report.signingTime = info.signingTime
        guard let signer = info.signers.first else {
            report.problems.append("signature has no signer certificate")
            return
        }
        report.signer = signer.subjectDescription
        if info.signingTime == nil {
            report.problems.append("signature has no signing-time attribute")
        }
        let intermediate = info.certificates.first { !$0.isSame(as: signer) && signer.isIssued(by: $0) }
        if intermediate == nil {
            report.problems.append("signature does not carry the WWDR certificate that issued the signer")
        }
        if let type = report.orderTypeIdentifier, signer.subjectUserID != type {
            report.problems.append(
                "signature is by the certificate for \(signer.subjectUserID ?? "no order type"), "
                    + "but order.json is of type \(type)"
            )
        }
    }
}
