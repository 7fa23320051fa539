import Hummingbird
import WalletOrdersService
import WalletOrdersStore

/// Lets a merchant API request through with `Authorization: Bearer <key>` for a key some merchant holds, and puts
/// that merchant in the context: 401 for no key or a key no merchant holds (or a revoked one), 403 for a suspended
/// merchant's key, 429 past the merchant's request rate. Failed keys count against the client's authentication
/// failures. On the routes of a group that admits partners (`admitsPartners`), a logistics partner's key
/// (`wo_partner_…`) puts the partner in the context instead; on every other route it answers 403.
struct MerchantKeyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let service: OrderService
    let guards: ClientGuards
    /// Whether the group's routes are ones a partner may call (posting tracking events, changing the progress of
    /// fulfillments).
    let admitsPartners: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let key = request.credential(scheme: "Bearer")
        if let key, key.hasPrefix(MerchantAPIKey.partnerPrefix) {
            let partner = try await guards.authenticatingKey(client: context.clientAddress, key: key) {
                try await service.merchants.authenticatePartner(key)
            }
            guard admitsPartners else {
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

}
