import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WalletOrdersCrypto

/// A stylesheet or script a page links to, served as it is. Its version is a digest of its bytes: a page links to
/// `href`, which names that version, and a browser keeps what it fetched there for good; any other request for it
/// (no version, or one an older page names) is answered with the bytes of now, to be checked again before reuse.
public struct StaticAsset: Sendable {
    /// Where it is served: `/admin/console.css`.
    public let path: String
    /// `text/css; charset=utf-8`.
    public let contentType: String
    /// The first 16 hex digits of the SHA-256 of its bytes.
    public let version: String
    let bytes: ByteBuffer

    /// The asset `contents`, served at `path` as `contentType`.
    public init(path: String, contentType: String, contents: Data) {
        self.path = path
        self.contentType = contentType
        version = String(DigestAlgorithm.sha256.hexDigest(contents).prefix(16))
        bytes = ByteBuffer(data: contents)
    }

    /// What a page links to: the path with the version, which changes whenever the bytes do.
    public var href: String { "\(path)?v=\(version)" }

    var entityTag: String { "\"\(version)\"" }

    /// The asset, or 304 when `request` holds its version already (`If-None-Match`).
    public func response(to request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.eTag] = entityTag
        // Under its versioned address the bytes never change; elsewhere they may, with the next release.
        headers[.cacheControl] =
            request.uri.queryParameters.get("v") == version ? "private, max-age=31536000, immutable" : "no-cache"
        headers[.init("x-content-type-options")!] = "nosniff"
        if matches(request.headers[values: .ifNoneMatch]) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// Whether the `If-None-Match` values name this version (compared weakly, as RFC 9110 says for that field).
    func matches(_ values: [String]) -> Bool {
        values.flatMap { $0.split(separator: ",") }.contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == entityTag
        }
    }
}
