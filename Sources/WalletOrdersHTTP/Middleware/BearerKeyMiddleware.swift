import Hummingbird
import WalletOrdersService

/// Lets a request through only with `Authorization: Bearer <key>` for one of `keys`, compared in constant time.
public struct BearerKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: [String]
    /// With guards, each key's requests count against the merchant rate limit.
    var guards: ClientGuards?

    /// Lets through requests bearing one of `keys`.
    public init(keys: [String]) {
        self.keys = keys
    }

    init(keys: [String], guards: ClientGuards?) {
        self.keys = keys
        self.guards = guards
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.credential(scheme: "Bearer"), !keys.isEmpty else { throw APIError.unauthorized }
        // Every key is compared, so timing tells nothing of which one matched.
        var matched: Int?
        for (index, candidate) in keys.enumerated() where ConstantTime.equals(key, candidate) { matched = index }
        guard let matched else { throw APIError.unauthorized }
        if let guards {
            // Counted under the key's position in the configuration: the key itself is kept nowhere else.
            try guards.take(guards.merchant, "merchant", client: "merchant-key-\(matched)")
        }
        return try await next(request, context)
    }
}
