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
        // The template's files come compressed and hashed; only the order, the manifest, the signature and the
        // order's own assets are worked on here.
        var files = template.packaged
        for (path, data) in assets where files[path]?.data != data {
            files[path] = PackageFile(data, effort: .perPackage, digests: [digest])
        }
        let orderData = prepared.order.serialized
        var manifest: [String: JSONValue] = ["order.json": .string(digest.hexDigest(orderData))]
        for (path, file) in files {
            manifest[path] = .string(file.digest(digest))
        }
        let manifestData = JSONValue.object(manifest).serialized(pretty: true)
        let signature: CMSSigner.Signature
        do {
            signature = try identity.signer.sign(manifestData, signingTime: signingTime)
        } catch {
            throw PackageError.failed("signing the manifest: \(error)")
        }

        var members = [ZipWriter.Member(path: "order.json", body: .init(compressing: orderData, effort: .perPackage))]
        members += files.keys.sorted().map { ZipWriter.Member(path: $0, body: files[$0]!.body) }
        members.append(ZipWriter.Member(path: "manifest.json", body: .init(compressing: manifestData, effort: .perPackage)))
        members.append(ZipWriter.Member(path: "signature", body: ZipWriter.Body(runs: [
            (signature.head, nil),
            ([UInt8](signature.certificateSet), identity.certificateSetBlocks),
            (signature.tail, nil),
        ])))
        let package: Data
        do {
            package = try ZipWriter.write(members, modified: signingTime)
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
    ) throws -> (order: OrderDocument, validation: OrderValidation) {
        var paths = template.paths
        var files = template.files
        for (path, data) in assets {
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: data) {
                throw PackageError.invalidAsset(path: path, problem: problem)
            }
            paths.insert(path)
            files[path] = data
        }
        let order = template.defaults.map(order.withDefaults) ?? order
        var validation = order.validate(files: paths, allowHTTPWebService: allowsHTTPWebService)
        if let type = order.orderTypeIdentifier, let signer = identity.orderTypeIdentifier, type != signer {
            validation.problems.append(OrderProblem(
                path: "orderTypeIdentifier",
                message: "\"\(type)\" does not match the signing certificate, which is for \(signer)"))
        }
        // A template's own localizations were checked when it loaded; assets can change them.
        validation.problems += assets.isEmpty ? template.localizationProblems : Localizations.problems(in: files)
        return (order, validation)
    }
}

/// A signed package and the warnings its order drew.
public struct BuiltPackage: Sendable {
    /// The `.order` file.
    public let data: Data
    /// What some devices will not show (objects newer than iOS 16, …), with paths into order.json.
    public let warnings: [OrderProblem]
}
