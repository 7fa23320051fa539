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

    /// The checks `build` runs, without compressing or signing: the order laid over the template's default fields
    /// and validated against the files the package will hold, the localizations of those files, the order type
    /// against the signing certificate, and the package against the limits `verify` reads within (`limits`).
    /// Throws `PackageError.invalidAsset` for an asset that cannot go into a package: a path or content a package
    /// may not hold, a file larger than a package's file may be, a path that collides with another on Apple's
    /// file systems.
    public func validate(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:]
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

    /// What `build` makes, with the warnings its checks found (objects older devices do not show, …), and its seal.
    public func package(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:],
        signingTime: Date
    ) throws -> BuiltPackage {
        let prepared = try prepare(order: order, template: template, assets: assets)
        guard prepared.validation.isValid else { throw PackageError.invalidOrder(prepared.validation.problems) }
        let contents = self.contents(orderJSON: prepared.orderJSON, template: template, assets: assets)
        try checkCompression(contents, assets: assets)
        let signature: CMSSigner.Signature
        do {
            signature = try identity.signer.sign(contents.manifest, signingTime: signingTime)
        } catch {
            throw PackageError.failed("signing the manifest: \(error)")
        }
        let package = try zip(contents, signature: signature, signingTime: signingTime)
        guard package.count < Self.maxPackageBytes else {
            throw PackageError.tooLarge(bytes: package.count, limit: Self.maxPackageBytes)
        }
        let seal = signature.value.map {
            PackageSeal(
                signingTime: Int64(signingTime.timeIntervalSince1970.rounded(.down)),
                manifestDigest: DigestAlgorithm.sha256.digest(contents.manifest),
                signerDigest: identity.signerDigest,
                value: $0
            )
        }
        return BuiltPackage(data: package, warnings: prepared.validation.warnings, seal: seal)
    }

    /// The package `package(order:template:assets:signingTime:)` made with `seal`, assembled again from the same
    /// order, template and assets without the key: the same bytes. Nil when the seal does not fit them (the order,
    /// the template's files or the assets are not those it signed, or this builder signs with other certificates),
    /// so the package has to be built and signed again.
    public func package(
        order: OrderDocument,
        template: OrderTemplate = OrderTemplate(),
        assets: [String: Data] = [:],
        seal: PackageSeal
    ) throws -> Data? {
        guard seal.signerDigest == identity.signerDigest else { return nil }
        let contents = self.contents(
            orderJSON: template.applyingDefaults(to: order).serialized,
            template: template,
            assets: assets
        )
        let signingTime = Date(timeIntervalSince1970: TimeInterval(seal.signingTime))
        guard DigestAlgorithm.sha256.digest(contents.manifest) == seal.manifestDigest,
            let signature = try identity.signer.signature(
                over: contents.manifest,
                signingTime: signingTime,
                value: seal.value
            )
        else { return nil }
        return try zip(contents, signature: signature, signingTime: signingTime)
    }

    /// What a package holds besides its signature: order.json (`orderJSON`, the order as `OrderDocument.serialized`
    /// writes it), the other files (the template's, then the assets over them) and the manifest of them all.
    private func contents(
        orderJSON: Data,
        template: OrderTemplate,
        assets: [String: Data]
    )
        -> Contents
    {
        // The template's files come compressed and hashed; only the order, the manifest, the signature and the
        // order's own assets are worked on here.
        var files = template.packaged
        for (path, data) in assets where files[path]?.data != data {
            files[path] = PackageFile(data, effort: .perPackage, digests: [digest])
        }
        let orderFile = PackageFile(orderJSON, effort: .perPackage, digests: [digest])
        var manifest: [String: JSONValue] = ["order.json": .string(orderFile.digest(digest))]
        for (path, file) in files {
            manifest[path] = .string(file.digest(digest))
        }
        return Contents(order: orderFile, files: files, manifest: JSONValue.object(manifest).serialized(pretty: true))
    }

    /// What `contents(order:template:assets:)` assembles: order.json and the other files, compressed and hashed,
    /// and the manifest.
    struct Contents {
        let order: PackageFile
        let files: [String: PackageFile]
        let manifest: Data
    }

    /// The zip of `contents` and `signature`, every timestamp `signingTime`.
    private func zip(
        _ contents: Contents,
        signature: CMSSigner.Signature,
        signingTime: Date
    ) throws -> Data {
        var members = [ZipWriter.Member(path: "order.json", body: contents.order.body)]
        members += contents.files.sorted { $0.key < $1.key }.map { ZipWriter.Member(path: $0.key, body: $0.value.body) }
        members.append(
            ZipWriter.Member(
                path: "manifest.json",
                body: .init(compressing: contents.manifest, effort: .perPackage)
            )
        )
        members.append(
            ZipWriter.Member(
                path: "signature",
                body: ZipWriter.Body(runs: [
                    (signature.head, nil),
                    ([UInt8](signature.certificateSet), identity.certificateSetBlocks),
                    (signature.tail, nil),
                ])
            )
        )
        do {
            return try ZipWriter.write(members, modified: signingTime)
        } catch {
            throw PackageError.failed("zipping the package: \(error)")
        }
    }

    private func prepare(
        order: OrderDocument,
        template: OrderTemplate,
        assets: [String: Data]
    ) throws -> (order: OrderDocument, orderJSON: Data, validation: OrderValidation) {
        var paths = template.paths
        var files = template.files
        var names = PackagePath.FileSystemNames()
        // The template's own paths were checked when it was read; here they only stand in the way of assets.
        if !assets.isEmpty {
            for path in template.paths.sorted() { _ = names.add(path, label: "the template's \(path)") }
        }
        for (path, data) in assets.sorted(by: { $0.key < $1.key }) {
            let problem =
                PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: data)
                ?? Self.fileSizeProblem(data.count)
            if let problem = problem ?? names.add(path) {
                throw PackageError.invalidAsset(path: path, problem: problem)
            }
            paths.insert(path)
            files[path] = data
        }
        let order = template.applyingDefaults(to: order)
        var validation = order.validate(files: paths, allowHTTPWebService: allowsHTTPWebService)
        if let type = order.orderTypeIdentifier, let signer = identity.orderTypeIdentifier, type != signer {
            validation.problems.append(
                OrderProblem(
                    path: "orderTypeIdentifier",
                    message: "\"\(type)\" does not match the signing certificate, which is for \(signer)"
                )
            )
        }
        // Serialized once: measured here, and packaged as it is.
        let orderJSON = order.serialized
        let limitProblems = self.limitProblems(orderBytes: orderJSON.count, files: files, templateFiles: template.paths.count)
        if limitProblems.isEmpty {
            // A template's own localizations were checked when it loaded; assets can change them.
            validation.problems += assets.isEmpty ? template.localizationProblems : Localizations.problems(in: files)
        } else {
            // Past the limits the files are read no further: their number or size is the problem.
            validation.problems += limitProblems
        }
        return (order, orderJSON, validation)
    }
}

/// A signed package, the warnings its order drew, and its seal.
public struct BuiltPackage: Sendable {
    /// The `.order` file.
    public let data: Data
    /// What some devices will not show (objects newer than iOS 16, …), with paths into order.json.
    public let warnings: [OrderProblem]
    /// What assembles the same package again without the key; nil when the key is neither RSA nor EC.
    public let seal: PackageSeal?

    public init(data: Data, warnings: [OrderProblem], seal: PackageSeal?) {
        self.data = data
        self.warnings = warnings
        self.seal = seal
    }

    /// What a store keeps of this package: its seal, or the package itself when it has none.
    public var stored: Data { seal?.encoded ?? data }
}
