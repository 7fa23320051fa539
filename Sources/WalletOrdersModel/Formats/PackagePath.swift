/// Rules for the paths of files inside an `.order` package.
public enum PackagePath {
    /// Files the package builder writes itself; an asset may not use these names.
    public static let reserved: Set<String> = ["order.json", "manifest.json", "signature"]

    /// The longest path accepted for a file in a package.
    public static let maxLength = 200

    /// Whether `name` ends like a PNG or JPEG file.
    public static func isImageName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".png") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
    }

    /// Whether `name` ends like a file order.json may attach: an image, or a PDF (return labels, receipts).
    public static func isAttachmentName(_ name: String) -> Bool {
        isImageName(name) || name.lowercased().hasSuffix(".pdf")
    }

    /// Why `path` cannot be a template or asset file in a package, or nil when it can.
    ///
    /// Accepted: images and PDFs at the top level, and `<lang>.lproj/` folders holding those or `order.strings`.
    public static func problem(with path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.utf8.count > maxLength { return "the path is longer than \(maxLength) bytes" }
        if path.hasPrefix("/") { return "the path must be relative, not absolute" }
        if path.contains("\\") { return "the path must use / between folders" }
        if reserved.contains(path) { return "\(path) is written by the service and cannot be supplied" }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        for component in components {
            if component.isEmpty { return "the path has an empty folder name" }
            if component == ".." || component == "." { return "the path must not contain . or .." }
            if component.hasPrefix(".") { return "hidden files (starting with .) are not allowed" }
            if component.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7f}" }) {
                return "the path contains control characters"
            }
        }
        let name = String(components.last!)
        switch components.count {
        case 1:
            return isAttachmentName(name) ? nil : "only PNG and JPEG images and PDF files may stand at the top level"
        case 2:
            let folder = components[0]
            guard folder.hasSuffix(".lproj"), folder.count > 6 else {
                return "files may only be nested inside a <language>.lproj folder"
            }
            return isAttachmentName(name) || name == "order.strings"
                ? nil : "a .lproj folder may only hold order.strings, PNG or JPEG images and PDF files"
        default:
            return "files may only be nested one level deep, inside a <language>.lproj folder"
        }
    }

    /// Whether a file `name` referenced by order.json is among `files`, at the top level or localized.
    public static func contains(file name: String, in files: Set<String>) -> Bool {
        files.contains(name)
            || files.contains { path in
                let parts = path.split(separator: "/")
                return parts.count == 2 && parts[0].hasSuffix(".lproj") && parts[1] == name
            }
    }

    /// The extensions of the images a package may hold, in the order a base name looks for them.
    public static let imageExtensions = ["png", "jpg", "jpeg"]

    /// Why `name` cannot name an image in order.json, or nil when it can.
    ///
    /// An image is named by its file name (`logo.png`, `logo.jpeg`) or, as Apple's "Creating the source for an
    /// order" does, by its base name without extension (`logo`), which stands for `logo.png`, `logo@2x.png` and
    /// `logo@3x.png` (or .jpg, .jpeg). Either way it is a name, not a path: Wallet looks for it at the top level
    /// and in the `.lproj` folders.
    public static func imageReferenceProblem(_ name: String) -> String? {
        if let problem = fileNameProblem(name) { return problem }
        if hasExtension(name, in: imageExtensions) || !name.unicodeScalars.contains(".") { return nil }
        return "\"\(name)\" is neither a PNG or JPEG file name (logo.png) nor an image base name without extension (logo)"
    }

    /// Why `name` cannot name a file order.json attaches (a receipt, a return label), or nil when it can: the file
    /// name of a PNG, a JPEG or a PDF.
    public static func attachmentReferenceProblem(_ name: String) -> String? {
        if let problem = fileNameProblem(name) { return problem }
        return hasExtension(name, in: imageExtensions + ["pdf"])
            ? nil
            : "\"\(name)\" is not the file name of a PNG, JPEG or PDF file (label.pdf)"
    }

    /// Whether an image reference is a base name (`logo`) rather than a file name (`logo.png`).
    public static func isImageBaseName(_ name: String) -> Bool {
        !hasExtension(name, in: imageExtensions)
    }

    /// The files among `files` that the image base name `name` stands for: `name.png`, `name@2x.png`,
    /// `name@3x.png` (or .jpg, .jpeg, in any letter case), at the top level or in `.lproj` folders.
    public static func imageFiles(forBaseName name: String, in files: Set<String>) -> [String] {
        let stems: Set<String> = [name, name + "@2x", name + "@3x"]
        return files.filter { path in
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 1 || (parts.count == 2 && parts[0].hasSuffix(".lproj")),
                let file = parts.last, let dot = file.lastIndex(of: ".")
            else { return false }
            return stems.contains(String(file[..<dot]))
                && imageExtensions.contains(file[file.index(after: dot)...].lowercased())
        }.sorted()
    }

    // Names are looked at scalar by scalar, as the JSON Schema's patterns see them.
    private static func hasExtension(_ name: String, in extensions: [String]) -> Bool {
        let scalars = name.unicodeScalars
        guard let dot = scalars.lastIndex(of: ".") else { return false }
        return extensions.contains(String(scalars[scalars.index(after: dot)...]).lowercased())
    }

    private static func fileNameProblem(_ name: String) -> String? {
        if name.unicodeScalars.first == "." { return "\"\(name)\" starts with a dot, which names a hidden file" }
        if name.unicodeScalars.contains("/") || name.unicodeScalars.contains("\\") {
            return "\"\(name)\" is a path; name the file alone, which Wallet finds at the top level or in a .lproj folder"
        }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7f}" }) {
            return "the file name contains control characters"
        }
        return nil
    }
}
