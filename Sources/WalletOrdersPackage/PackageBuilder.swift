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

    /// The checks `build` runs, without signing: the order laid over the template's default fields and validated
    /// against the files the package will hold, the localizations of those files, and the order type against the
    /// signing certificate. Throws `PackageError.invalidAsset` for an asset that cannot go into a package.
    public func validate(
        order: OrderDocument, template: OrderTemplate = OrderTemplate(), assets: [String: Data] = [:]
    ) throws -> OrderValidation {
        try prepare(order: order, template: template, assets: assets).validation
    }

    /// The package for `order`: the template's files, then per-order `assets` over them, `order.json`,
    /// `manifest.json` and `signature`, zipped.
    ///
    /// The order is laid over the template's default fields and checked as `validate` does; any problem throws
    /// `PackageError.invalidOrder` with all of them. The signing time and every zip timestamp is `signingTime`,
    /// so the same inputs always give the same bytes.
    public func build(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:],
        signingTime: Date
    ) throws -> Data {
        try package(order: order, template: template, assets: assets, signingTime: signingTime).data
    }

    /// What `build` makes, with the warnings its checks found (objects older devices do not show, …).
    public func package(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:],
        signingTime: Date
    ) throws -> BuiltPackage {
        let prepared = try prepare(order: order, template: template, assets: assets)
        guard prepared.validation.isValid else { throw PackageError.invalidOrder(prepared.validation.problems) }
        var files = prepared.files
        files["order.json"] = prepared.order.serialized

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
        return BuiltPackage(data: package, warnings: prepared.validation.warnings)
    }

    private func prepare(
        order: OrderDocument, template: OrderTemplate, assets: [String: Data]
    ) throws -> (order: OrderDocument, files: [String: Data], validation: OrderValidation) {
        var files = template.files
        for (path, data) in assets {
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: data) {
                throw PackageError.invalidAsset(path: path, problem: problem)
            }
            files[path] = data
        }
        let order = template.defaults.map(order.withDefaults) ?? order
        var validation = order.validate(files: Set(files.keys), allowHTTPWebService: allowsHTTPWebService)
        if let type = order.orderTypeIdentifier, let signer = identity.orderTypeIdentifier, type != signer {
            validation.problems.append(OrderProblem(
                path: "orderTypeIdentifier",
                message: "\"\(type)\" does not match the signing certificate, which is for \(signer)"))
        }
        validation.problems += Localizations.problems(in: files)
        return (order, files, validation)
    }
}

/// A signed package and the warnings its order drew.
public struct BuiltPackage: Sendable {
    /// The `.order` file.
    public let data: Data
    /// What some devices will not show (objects newer than iOS 16, …), with paths into order.json.
    public let warnings: [OrderProblem]
}
