import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// What every order of one order type shares: images, localizations and default order fields.
///
/// A template folder holds images and PDFs at the top level, `<lang>.lproj/` folders with `order.strings` and
/// localized images, and optionally `template.json` with default order fields. `README.md` and hidden files are
/// skipped; anything else is an error, so a stray file never ends up in a signed package. The localizations must
/// agree (see `Localizations`).
public struct OrderTemplate: Sendable {
    /// Files to package, by package path.
    public let files: [String: Data]
    /// Default order fields, laid under each order.
    public let defaults: JSONValue?

    /// The file holding default order fields.
    public static let defaultsFileName = "template.json"

    /// `order` laid over `defaults` (`OrderDocument.withDefaults`); `order` itself when the template has none.
    public func applyingDefaults(to order: OrderDocument) -> OrderDocument {
        defaults.map(order.withDefaults) ?? order
    }

    /// `files` compressed and hashed once, for every package built from this template.
    let packaged: [String: PackageFile]
    /// The package paths of `files`.
    let paths: Set<String>
    /// What `Localizations` finds wrong with `files` alone; what a package without assets of its own has.
    let localizationProblems: [OrderProblem]

    /// A template of files already in memory (package path to bytes) and default order fields.
    ///
    /// Each file is compressed and hashed here, once, for every package built from the template.
    public init(files: [String: Data] = [:], defaults: JSONValue? = nil) {
        self.init(files: files, defaults: defaults, localizationProblems: Localizations.problems(in: files))
    }

    private init(files: [String: Data], defaults: JSONValue?, localizationProblems: [OrderProblem]) {
        self.init(
            files: files,
            defaults: defaults,
            localizationProblems: localizationProblems,
            packaged: files.mapValues { PackageFile($0, effort: .best, digests: DigestAlgorithm.allCases) }
        )
    }

    /// A template whose files are compressed and hashed already (`packaged`, one for each of `files`).
    init(files: [String: Data], defaults: JSONValue?, localizationProblems: [OrderProblem], packaged: [String: PackageFile]) {
        self.files = files
        self.defaults = defaults
        self.localizationProblems = localizationProblems
        paths = Set(files.keys)
        self.packaged = packaged
    }

    /// Reads a template folder; its files are compressed and hashed once, for every package built from it.
    public init(directory: URL) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PackageError.template("\(directory.path) is not a folder")
        }
        var files: [String: Data] = [:]
        var names = PackagePath.FileSystemNames()
        var defaults: JSONValue?
        for name in try manager.contentsOfDirectory(atPath: directory.path).sorted() where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            if name == Self.defaultsFileName {
                do {
                    defaults = try JSONValue.parse(Data(contentsOf: url))
                } catch {
                    throw PackageError.template("\(url.path): \(error)")
                }
                guard defaults?.objectValue != nil else {
                    throw PackageError.template("\(url.path) must hold a JSON object of default order fields")
                }
                continue
            }
            if name == "README.md" { continue }
            if manager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                for inner in try manager.contentsOfDirectory(atPath: url.path).sorted() where !inner.hasPrefix(".") {
                    try Self.add("\(name)/\(inner)", from: url.appendingPathComponent(inner), to: &files, names: &names)
                }
            } else {
                try Self.add(name, from: url, to: &files, names: &names)
            }
        }
        let problems = Localizations.problems(in: files)
        guard problems.isEmpty else {
            throw PackageError.template(
                "\(directory.path): the localizations disagree:\n"
                    + problems.map { "  - \($0)" }.joined(separator: "\n")
            )
        }
        self.init(files: files, defaults: defaults, localizationProblems: [])
    }

    private static func add(
        _ path: String,
        from url: URL,
        to files: inout [String: Data],
        names: inout PackagePath.FileSystemNames
    ) throws {
        // A folder on Linux may hold A.png beside a.png, or é.png twice in two Unicode forms; a Mac holds one.
        if let problem = PackagePath.problem(with: path) ?? names.add(path) {
            throw PackageError.template("\(url.path): \(problem)")
        }
        let data = try Data(contentsOf: url)
        if let problem = FileContent.problem(path: path, data: data) {
            throw PackageError.template("\(url.path): \(problem)")
        }
        files[path] = data
    }
}

/// Checks that a file's bytes are what its name says.
enum FileContent {
    static func problem(path: String, data: Data) -> String? {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") {
            return data.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) ? nil : "is not a PNG image"
        }
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") {
            return data.starts(with: [0xff, 0xd8, 0xff]) ? nil : "is not a JPEG image"
        }
        if lower.hasSuffix(".pdf") {
            return data.starts(with: Array("%PDF-".utf8)) ? nil : "is not a PDF file"
        }
        if lower.hasSuffix(".strings") {
            // Apple reads .strings as UTF-8 or UTF-16 (with a byte order mark).
            let isUTF16 = data.starts(with: [0xff, 0xfe]) || data.starts(with: [0xfe, 0xff])
            return isUTF16 || String(data: data, encoding: .utf8) != nil ? nil : "is neither UTF-8 nor UTF-16 text"
        }
        return "is not a file type a package may hold"
    }
}
