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
        if files.contains(name) { return true }
        return files.contains { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0].hasSuffix(".lproj") && parts[1] == name
        }
    }
}
