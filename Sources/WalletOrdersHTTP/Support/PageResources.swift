import Foundation
import Mustache

/// A folder of a module's resources that holds what its pages are made of: Mustache templates (`name.mustache`),
/// and stylesheets and scripts served as they are. Tools read them as files; the server reads each once.
public struct PageResources: Sendable {
    /// The folder, inside the module's resource bundle.
    public let folder: URL

    /// The folder `name` of `bundle`'s resources (a module passes its `Bundle.module`).
    public init(bundle: Bundle, folder name: String) {
        folder = (bundle.resourceURL ?? bundle.bundleURL).appendingPathComponent(name, isDirectory: true)
    }

    /// The text of `file`.
    public func text(_ file: String) throws -> String {
        String(decoding: try data(file), as: UTF8.self)
    }

    /// The template `name.mustache`, parsed.
    public func template(_ name: String) throws -> MustacheTemplate {
        try MustacheTemplate(string: text("\(name).mustache"))
    }

    /// `file`, to serve at `path` as `contentType`.
    public func asset(_ file: String, at path: String, contentType: String) throws -> StaticAsset {
        StaticAsset(path: path, contentType: contentType, contents: try data(file))
    }

    private func data(_ file: String) throws -> Data {
        let url = folder.appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw APIError(.internalServerError, "\(file) is not installed beside the binary")
        }
        return data
    }
}
