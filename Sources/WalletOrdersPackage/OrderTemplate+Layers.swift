import Foundation
import WalletOrdersModel

/// Templates laid over one another (a platform's order type template under a merchant's own), stored as one
/// document, and checked when a merchant sets one.
extension OrderTemplate {
    /// This template with `top` laid over it: `top`'s files replace those of the same path, and its default fields
    /// are merged over these (a JSON merge patch: objects merge, `null` removes).
    public func overlaid(by top: OrderTemplate) -> OrderTemplate {
        let defaults: JSONValue? =
            switch (self.defaults, top.defaults) {
            case (let base?, let over?): base.merging(patch: over)
            case (let base, nil): base
            case (nil, let over): over
            }
        // The files each layer compressed and hashed already are reused: a platform's template under a thousand
        // merchants' is compressed once.
        let merged = files.merging(top.files) { $1 }
        return OrderTemplate(
            files: merged,
            defaults: defaults,
            localizationProblems: Localizations.problems(in: merged),
            packaged: packaged.merging(top.packaged) { $1 }
        )
    }

    /// The template as one JSON document: `{"defaults": {…}, "files": {"path": "<base64>"}}`.
    public func encoded() -> Data {
        var members: [String: JSONValue] = [
            "files": .object(files.mapValues { .string($0.base64EncodedString()) })
        ]
        if let defaults { members["defaults"] = defaults }
        return JSONValue.object(members).serialized()
    }

    /// The template `encoded()` wrote.
    public init(encoded data: Data) throws {
        let document = try JSONValue.parse(data)
        var files: [String: Data] = [:]
        for (path, value) in document["files"]?.objectValue ?? [:] {
            guard let text = value.stringValue, let bytes = Data(base64Encoded: text) else {
                throw PackageError.template("the stored template's \(path) is not base64")
            }
            files[path] = bytes
        }
        let defaults = document["defaults"]
        self.init(files: files, defaults: defaults == .null ? nil : defaults)
    }

    /// What is wrong with a template sent as `files` and default fields, laid over `base`, as a template folder
    /// is checked and then some: each file's path and content, paths that collide on Apple's file systems with
    /// another (`A.png` beside `a.png`), the default fields (an object), the localizations of the files together,
    /// the images the defaults name (`merchant.logo`, `orderProvider`'s tracking logos), the number of files a
    /// package may hold and the 5 MB it may weigh. Empty when it may be used.
    public static func problems(files: [String: Data], defaults: JSONValue?, over base: OrderTemplate) -> [OrderProblem] {
        var problems: [OrderProblem] = []
        var names = PackagePath.FileSystemNames()
        for path in base.files.keys.sorted() { _ = names.add(path, label: "the underlying template's \(path)") }
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            if let problem = PackagePath.problem(with: path) ?? FileContent.problem(path: path, data: data) ?? names.add(path) {
                problems.append(OrderProblem(path: "files.\(path)", message: problem))
            }
        }
        if let defaults, defaults.objectValue == nil {
            problems.append(OrderProblem(path: "defaults", message: "must be an object of default order fields"))
        }
        guard problems.isEmpty else { return problems }
        let layered = base.overlaid(by: OrderTemplate(files: files, defaults: defaults))
        problems += Localizations.problems(in: layered.files).map {
            OrderProblem(path: "files.\($0.path)", message: $0.message)
        }
        let index = PackagePath.FileIndex(Set(layered.files.keys))
        let images: [(path: String, name: JSONValue?)] = [
            ("defaults.merchant.logo", layered.defaults?["merchant"]?["logo"]),
            (
                "defaults.orderProvider.trackingLogoNameLightColorScheme",
                layered.defaults?["orderProvider"]?["trackingLogoNameLightColorScheme"]
            ),
            (
                "defaults.orderProvider.trackingLogoNameDarkColorScheme",
                layered.defaults?["orderProvider"]?["trackingLogoNameDarkColorScheme"]
            ),
        ]
        for case let (path, .string(name)?) in images {
            let present =
                PackagePath.isImageBaseName(name) ? index.containsImage(forBaseName: name) : index.contains(file: name)
            if !present { problems.append(OrderProblem(path: path, message: "names \(name), which the template does not hold")) }
        }
        let entries = layered.files.count + PackageBuilder.ownFiles
        if entries > PackageBuilder.limits.maxEntries {
            problems.append(
                OrderProblem(
                    path: "files",
                    message: "would make packages of \(entries) files with order.json, manifest.json and signature; a "
                        + "package may hold at most \(PackageBuilder.limits.maxEntries), the most verify reads"
                )
            )
        }
        let bytes = layered.files.values.reduce(0) { $0 + $1.count }
        if bytes >= PackageBuilder.maxPackageBytes {
            problems.append(
                OrderProblem(
                    path: "files",
                    message: "come to \(bytes) bytes; a package must stay below \(PackageBuilder.maxPackageBytes) bytes"
                )
            )
        }
        return problems
    }
}
