import Foundation
import Hummingbird
import WalletOrdersService

/// Hummingbird's tracing middleware, except for requests whose path is a secret: a download link's path is its
/// reference. The link routes are added before tracing, but a path that only nearly names one (`/links/REF/x`,
/// `/Links/REF`, `/./links/REF`, `/%6Cinks/REF`) reaches no link route and would be traced with its path, so every
/// path that reads as `links/…` once percent-decoded, with its empty and dot segments resolved and its case folded,
/// is left untraced.
struct SecretPathTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    let tracing = TracingMiddleware<Context>()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.isSecret(path: request.uri.path) { return try await next(request, context) }
        return try await tracing.handle(request, context: context, next: next)
    }

    /// Whether `path` names, or nearly names, a download link.
    static func isSecret(path: String) -> Bool {
        // Decoded until it no longer changes: `%256C` is `%6C` once decoded, `l` twice.
        var decoded = path
        for _ in 0..<4 {
            guard let next = decoded.removingPercentEncoding, next != decoded else { break }
            decoded = next
        }
        var segments: [Substring] = []
        for segment in decoded.split(whereSeparator: { $0 == "/" || $0 == "\\" }) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return segments.first?.lowercased() == OrderLinks.path
    }
}
