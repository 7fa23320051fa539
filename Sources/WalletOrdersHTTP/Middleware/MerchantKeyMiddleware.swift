import Hummingbird
import WalletOrdersService
import WalletOrdersStore

/// Lets a merchant API request through with `Authorization: Bearer <key>` for a key some merchant holds, and puts
/// that merchant in the context: 401 for no key or a key no merchant holds (or a revoked one), 403 for a suspended
/// merchant's key, 429 past the merchant's request rate. Failed keys count against the client's authentication
/// failures. A logistics partner's key (`wo_partner_…`) puts the partner in the context instead, for the two calls
/// partners may make; any other answers 403.
struct MerchantKeyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let service: OrderService
    let guards: ClientGuards

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let key = request.credential(scheme: "Bearer")
        if let key, key.hasPrefix(MerchantAPIKey.partnerPrefix) {
            let partner = try await guards.authenticatingKey(client: context.clientAddress, key: key) {
                try await service.merchants.authenticatePartner(key)
            }
            guard Self.partnersMay(request) else {
                throw APIError(
                    .forbidden,
                    "a partner key may only post tracking events (POST /api/v1/tracking-events) and change the progress "
                        + "of fulfillments (PATCH /api/v1/orders/{type}/{id}); the rest of the API is the merchant's"
                )
            }
            try guards.takePartner(partner)
            context.partner = partner
            return try await next(request, context)
        }
        let merchant = try await guards.authenticatingKey(client: context.clientAddress, key: key) { () -> Merchant? in
            guard let key else { return nil }
            return try await service.merchants.authenticate(key)
        }
        guard merchant.status == .active else { throw APIError(OrderServiceError.merchantSuspended(merchant.slug)) }
        try guards.takeMerchant(merchant)
        guards.metrics.merchantRequest(merchant.slug)
        context.merchant = merchant
        do {
            return try await next(request, context)
        } catch OrderServiceError.limitReached(let quota, let merchant) {
            guards.metrics.merchantLimited(merchant.slug, limit: quota.rawValue)
            throw OrderServiceError.limitReached(quota, merchant: merchant)
        }
    }

    /// Whether a partner key may make this request: post tracking events, or patch an order.
    static func partnersMay(_ request: Request) -> Bool {
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        switch request.method {
        case .post: return path == ["", "api", "v1", "tracking-events"]
        case .patch: return path.count == 6 && path[1] == "api" && path[2] == "v1" && path[3] == "orders"
        default: return false
        }
    }
}
