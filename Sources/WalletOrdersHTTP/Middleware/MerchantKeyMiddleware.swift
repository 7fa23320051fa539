import Hummingbird
import WalletOrdersService
import WalletOrdersStore

/// Lets a merchant API request through with `Authorization: Bearer <key>` for a key some merchant holds, and puts
/// that merchant in the context: 401 for no key or a key no merchant holds (or a revoked one), 403 for a suspended
/// merchant's key, 429 past the merchant's request rate. Failed keys count against the client's authentication
/// failures.
struct MerchantKeyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let service: OrderService
    let guards: ClientGuards

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let key = request.credential(scheme: "Bearer")
        let merchant = try await guards.authenticatingKey(client: context.clientAddress, key: key) { () -> Merchant? in
            guard let key else { return nil }
            return try await service.merchants.authenticate(key)
        }
        guard merchant.status == .active else {
            throw APIError(
                .forbidden,
                "merchant \(merchant.slug) is suspended: its keys are refused until an operator resumes it "
                    + "(its orders keep serving devices)"
            )
        }
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
