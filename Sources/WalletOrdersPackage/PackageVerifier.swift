import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// What checking a package found.
public struct PackageReport: Sendable {
    /// What a problem is about: each is found by one of these checks, so that a caller can tell, say, a broken
    /// chain from a broken manifest without reading the sentences.
    public enum Check: String, Sendable, CaseIterable {
        /// The package's size (Wallet takes packages below 5 MB).
        case size
        /// The zip archive, and each file's path and content type.
        case archive
        /// order.json: present, valid, the files it names, the localizations.
        case order
        /// manifest.json: every other file listed with its digest.
        case manifest
        /// The CMS signature over manifest.json: present, matching, with a signing time and the WWDR certificate.
        case signature
        /// The signer's chain up to a trusted root.
        case chain
        /// The signer's certificate names the order's type.
        case signer
    }

    /// One problem and the check that found it.
    public struct Finding: Sendable, Equatable {
        public let check: Check
        public let problem: String
    }

    /// Every problem with the check that found it, in the order found.
    public internal(set) var findings: [Finding] = []
    /// Everything wrong, one sentence each; empty when the package is good.
    public var problems: [String] { findings.map(\.problem) }

    /// The problems `check` found.
    public func problems(_ check: Check) -> [String] {
        findings.filter { $0.check == check }.map(\.problem)
    }

    mutating func add(_ check: Check, _ problem: String) {
        findings.append(Finding(check: check, problem: problem))
    }
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
            report.add(.size, sizeProblem(package.count))
        }
        guard package.count <= maxInspectedBytes else { return report }
        let contents = ZipArchive.inspect(package)
        report.files = contents.entries.map(\.path)
        guard contents.problems.isEmpty else {
            // An archive that is hostile or broken is not looked into any further.
            for problem in contents.problems { report.add(.archive, problem) }
            return report
        }
        let files = Dictionary(contents.entries.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first })
        for entry in contents.entries where !PackagePath.reserved.contains(entry.path) {
            let path = entry.path
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: entry.data) {
                report.add(.archive, "\(path): \(problem)")
            }
        }
        guard let orderData = files["order.json"] else {
            report.add(.order, "order.json is missing")
            return report
        }
        checkOrder(orderData, files: Set(files.keys), allowHTTPWebService: allowHTTPWebService, into: &report)
        for problem in Localizations.problems(in: files) {
            report.add(.order, "\(problem)")
        }
        guard let manifestData = files["manifest.json"] else {
            report.add(.manifest, "manifest.json is missing")
            return report
        }
        checkManifest(manifestData, files: files, into: &report)
        guard let signature = files["signature"] else {
            report.add(.signature, "signature is missing")
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
        report.add(
            .size,
            sizeProblem(bytes) + " (the file is not looked into: it is larger than \(maxInspectedBytes) bytes)"
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
            report.add(.order, "order.json is not a JSON object")
            return
        }
        report.orderTypeIdentifier = order.orderTypeIdentifier
        report.orderIdentifier = order.orderIdentifier
        let validation = order.validate(files: files, allowHTTPWebService: allowHTTPWebService)
        for problem in validation.problems { report.add(.order, "order.json \(problem)") }
        report.warnings += validation.warnings.map { "order.json \($0)" }
    }

    private static func checkManifest(_ data: Data, files: [String: Data], into report: inout PackageReport) {
        guard let manifest = (try? JSONValue.parse(data))?.objectValue else {
            report.add(.manifest, "manifest.json is not a JSON object")
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
                report.add(.manifest, "\(path) is not listed in manifest.json")
                continue
            }
            guard let digest, listed.count == digest.hexLength else {
                report.add(.manifest, "\(path) has a digest in manifest.json that is not SHA-256 or SHA-1 hex")
                continue
            }
            if listed.lowercased() != digest.hexDigest(data) {
                report.add(.manifest, "\(path) does not match its digest in manifest.json")
            }
        }
        for path in manifest.keys.sorted() where files[path] == nil {
            report.add(.manifest, "manifest.json lists \(path), which is not in the package")
        }
    }

    private static func checkSignature(
        _ signature: Data,
        manifest: Data,
        trustedRoots: [Certificate]?,
        into report: inout PackageReport
    ) {
        // The signature is checked on its own first, then its chain: a caller learns which of the two failed.
        let info: CMSSignedInfo
        do {
            info = try CMSSignature.verify(signature, content: manifest, trustedRoots: nil)
        } catch let error as CryptoError {
            report.add(.signature, "signature: \(error.operation)")
            return
        } catch {
            report.add(.signature, "signature: \(error)")
            return
        }
        if let trustedRoots {
            do {
                _ = try CMSSignature.verify(signature, content: manifest, trustedRoots: trustedRoots)
                report.chainChecked = true
            } catch {
                report.add(.chain, "signature: the signer's certificate does not chain to the trusted root")
            }
        }
        report.signingTime = info.signingTime
        guard let signer = info.signers.first else {
            report.add(.signature, "signature has no signer certificate")
            return
        }
        report.signer = signer.subjectDescription
        if info.signingTime == nil {
            report.add(.signature, "signature has no signing-time attribute")
        }
        let intermediate = info.certificates.first { !$0.isSame(as: signer) && signer.isIssued(by: $0) }
        if intermediate == nil {
            report.add(.signature, "signature does not carry the WWDR certificate that issued the signer")
        }
        if let type = report.orderTypeIdentifier, signer.subjectUserID != type {
            report.add(
                .signer,
                "signature is by the certificate for \(signer.subjectUserID ?? "no order type"), but order.json is of type \(type)"
            )
        }
    }
}
