import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTracking

/// `POST /hooks/{provider}/{partner}`: a carrier aggregator's webhook (AfterShip, EasyPost) for a partner added with
/// that provider. Nothing but the provider's signature, checked with the partner's secret, authenticates it: an
/// unknown partner, another provider's partner and a wrong signature answer the same 401, and count against the
/// client's authentication failures. Bodies are bounded; a signed request is taken from the partner's allowance.
struct TrackingHookRoute: Sendable {
    let service: OrderService
    let guards: ClientGuards

    /// A provider's request carries one tracking, its checkpoints included: far below this.
    static let bodyLimit = 1_024 * 1_024
    static let path = "hooks"

    func add(to router: Router<ServiceRequestContext>) {
        router.post("\(Self.path)/:provider/:partner") { request, context in try await receive(request, context) }
    }

    func receive(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        guard let provider = context.parameters.get("provider").flatMap(TrackingProvider.init(rawValue:)) else {
            throw APIError(
                .notFound,
                "no such provider: webhooks are taken from \(TrackingProvider.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let name = context.parameters.get("partner") ?? ""
        let body = try await request.collectedBody(limit: Self.bodyLimit)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let bytes = Array(buffer: body)
        let (partner, events) = try await guards.authenticatingKey(
            client: context.clientAddress,
            key: "\(provider.rawValue) \(name)"
        ) { () -> (Partner, [TrackingEvent])? in
            func signed() async throws -> (Partner, [TrackingEvent])? {
                guard let partner = try await service.merchants.partner(named: name), partner.provider == provider.rawValue,
                    let secret = partner.providerSecret
                else { return nil }
                do {
                    return (partner, try provider.events(body: bytes, headers: headers, secret: secret))
                } catch TrackingWebhookError.unreadable(let problem) {
                    throw APIError(.badRequest, problem)
                } catch {
                    return nil
                }
            }
            // A partner, or a secret, made a moment ago by another instance or the command line: looked for again
            // once the directory has read what changed. Each failure counts toward the address's authentication
            // failures, so this is one small read per failed attempt at most.
            if let found = try await signed() { return found }
            await service.merchants.refresh()
            return try await signed()
        }
        // Signed, and so read once already by the provider's parser: held now to the rule of every JSON body
        // (`JSONBody`), which the provider's parser does not know.
        _ = try JSONBody.parse(Data(bytes))
        try guards.takePartner(partner)
        let results = try await service.track(
            events.map { Result<TrackingEvent, TrackingEventProblems>.success($0) },
            from: .partner(partner)
        )
        return JSONResponse.make(.ok, .object(["results": try JSONValue.encoding(results)]))
    }
}
