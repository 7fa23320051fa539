import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// Builds signed `.order` packages for one order type.
public struct PackageBuilder: Sendable {
    /// Wallet refuses packages of 5 MB or more; counted in decimal megabytes to stay on the safe side.
    public static let maxPackageBytes = 5_000_000
    /// The MIME type of a package.
    public static let contentType = "application/vnd.apple.finance.order"

    /// Who signs.
    public let identity: SigningIdentity
    /// The digest `manifest.json` uses.
    public let digest: DigestAlgorithm
    /// Whether `webServiceURL` may be plain http: for a development server only, as Wallet requires https.
    public let allowsHTTPWebService: Bool

    public init(identity: SigningIdentity, digest: DigestAlgorithm = .sha256, allowsHTTPWebService: Bool = false) {
        self.identity = identity
        self.digest = digest
        self.allowsHTTPWebService = allowsHTTPWebService
    }

    /// The package for `order`: the template's files, then per-order `assets` over them, `order.json`,
    /// `manifest.json` and `signature`, zipped.
    ///
    /// The order is laid over the template's default fields and validated; the signing time and every zip
    /// timestamp is `signingTime`, so the same inputs always give the same bytes.
    public func build(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:],
        signingTime: Date
    ) throws -> Data {
        var files = template.files
        for (path, data) in assets {
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: data) {
                throw PackageError.invalidAsset(path: path, problem: problem)
            }
            files[path] = data
        }
        let order = template.defaults.map(order.withDefaults) ?? order
        var problems = order.problems(files: Set(files.keys), allowHTTPWebService: allowsHTTPWebService)
        if let type = order.orderTypeIdentifier, let signer = identity.orderTypeIdentifier, type != signer {
            problems.append(OrderProblem(
                path: "orderTypeIdentifier",
                message: "\"\(type)\" does not match the signing certificate, which is for \(signer)"))
        }
        guard problems.isEmpty else { throw PackageError.invalidOrder(problems) }
        files["order.json"] = order.serialized

        var manifest: [String: JSONValue] = [:]
        for (path, data) in files {
            manifest[path] = .string(digest.hexDigest(data))
        }
        let manifestData = JSONValue.object(manifest).serialized(pretty: true)
        let signature: Data
        do {
            signature = try CMSSignature.sign(
                manifestData, certificate: identity.certificate, key: identity.key,
                chain: [identity.wwdr], signingTime: signingTime)
        } catch {
            throw PackageError.failed("signing the manifest: \(error)")
        }

        var entries = [ZipArchive.Entry(path: "order.json", data: files.removeValue(forKey: "order.json")!)]
        entries += files.keys.sorted().map { ZipArchive.Entry(path: $0, data: files[$0]!) }
        entries.append(ZipArchive.Entry(path: "manifest.json", data: manifestData))
        entries.append(ZipArchive.Entry(path: "signature", data: signature))
        let package: Data
        do {
            package = try ZipArchive.write(entries, modified: signingTime)
        } catch {
            throw PackageError.failed("zipping the package: \(error)")
        }
        guard package.count < Self.maxPackageBytes else {
            throw PackageError.tooLarge(bytes: package.count, limit: Self.maxPackageBytes)
        }
        return package
    }
}
