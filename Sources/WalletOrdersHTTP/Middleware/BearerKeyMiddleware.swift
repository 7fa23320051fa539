import Hummingbird
import WalletOrdersCrypto
import WalletOrdersService

/// Lets a request through only with `Authorization: Bearer <key>` for one of `keys`, compared in constant time.
/// For keys made at random in memory (the playground's), which no failure limiter needs to protect.
public struct BearerKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: [String]

    /// Lets through requests bearing one of `keys`.
    public init(keys: [String]) {
        self.keys = keys
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.credential(scheme: "Bearer"), !keys.isEmpty else { throw APIError.unauthorized }
        // Every key is compared, so timing tells nothing of which one matched.
        let matched = keys.reduce(false) { found, candidate in ConstantTime.equals(key, candidate) || found }
        guard matched else { throw APIError.unauthorized }
        return try await next(request, context)
    }
}
