import Foundation
import Hummingbird
import WalletOrdersModel

/// Refuses (400) a request whose path or query parameters, percent-decoded, hold NUL (`NULText`), on every route
/// alike: no handler, and no store, ever sees one. JSON bodies are held to the same rule where they are read
/// (`JSONBody`).
struct NULMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A NUL byte cannot be in a request line, only `%00`: requests without one (all but a few) pass at once.
        let path = request.uri.path
        if Self.mayHoldNUL(path), NULText.isIn(path.removingPercentEncoding ?? "") {
            throw APIError(.badRequest, "the path \(NULText.message)")
        }
        if let query = request.uri.query, Self.mayHoldNUL(query) {
            for (name, value) in request.uri.queryParameters
            where NULText.isIn(value) || NULText.isIn(String(name).removingPercentEncoding ?? "") {
                let shown = String(name).replacingOccurrences(of: "%00", with: "\\u0000")
                throw APIError(
                    .badRequest,
                    "the query parameter \(shown) \(NULText.message)",
                    problems: [OrderProblem(path: shown, message: NULText.message)]
                )
            }
        }
        return try await next(request, context)
    }

    /// Whether `text` holds `%00`, the only way a NUL comes in a request line.
    static func mayHoldNUL(_ text: String) -> Bool {
        text.utf8.count >= 3 && text.contains("%00")
    }
}
