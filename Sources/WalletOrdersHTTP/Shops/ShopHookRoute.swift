import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `POST /hooks/{kind}/{connection}`: a connected shop's webhook (Shopify, WooCommerce, UCP). Nothing but the platform's
/// signature, checked with the connection's secret or key, authenticates it: an unknown connection, another kind's,
/// and a wrong signature answer the same 401, and count against the client's authentication failures. Bodies are
/// bounded; a signed request is taken from its merchant's allowance. Every webhook taken is answered 200 with what it
/// came to, so that the platform does not send again what can never change.
struct ShopHookRoute: Sendable {
    let service: OrderService
    let guards: ClientGuards

    /// The web service's public address, which the platforms were given and a UCP signature covers: its scheme,
    /// authority and path (a proxy maps that path to this server's root).
    struct PublicAddress: Sendable {
        let scheme: String
        let authority: String
        let path: String

        init(_ webServiceURL: String) {
            let url = URL(string: webServiceURL)
            scheme = url?.scheme ?? "https"
            let host = url?.host ?? ""
            authority = url?.port.map { "\(host):\($0)" } ?? host
            path = url?.path ?? ""
        }
    }

    func add(to router: Router<ServiceRequestContext>) {
        let address = PublicAddress(service.webServiceURL)
        for kind in ShopKind.allCases {
            router.post("\(TrackingHookRoute.path)/\(kind.rawValue)/:connection") { request, context in
                try await receive(request, context, kind: kind, address: address)
            }
        }
    }

    func receive(
        _ request: Request,
        _ context: ServiceRequestContext,
        kind: ShopKind,
        address: PublicAddress
    ) async throws
        -> Response
    {
        let id = context.parameters.get("connection") ?? ""
        let body = try await request.collectedBody(limit: ShopService.bodyLimit)
        let shops = ShopService(orders: service)
        let webhook = ShopService.Webhook(
            method: request.method.rawValue,
            scheme: address.scheme,
            authority: address.authority,
            path: address.path + request.uri.path,
            query: request.uri.query,
            headers: request.headers.map { ($0.name.canonicalName, $0.value) },
            body: Array(buffer: body)
        )
        let connection = try await guards.authenticatingKey(client: context.clientAddress, key: "\(kind.rawValue) \(id)") {
            try await shops.authenticate(webhook, kind: kind, connection: id)
        }
        guard let merchant = try await service.merchants.merchant(id: connection.merchantID) else {
            throw OrderServiceError.orderNotFound
        }
        try guards.takeMerchant(merchant)
        let result = try await shops.take(webhook, from: connection, for: merchant)
        return JSONResponse.make(.ok, Self.json(result))
    }

    /// `{"result", "orderIdentifier", "version"}`, or with `reason` or `problems`.
    static func json(_ result: ShopIntakeResult) -> JSONValue {
        switch result {
        case .created(let id, let version):
            .object(["result": .string("created"), "orderIdentifier": .string(id), "version": .int(version)])
        case .updated(let id, let version):
            .object(["result": .string("updated"), "orderIdentifier": .string(id), "version": .int(version)])
        case .unchanged(let id, let version):
            .object(["result": .string("unchanged"), "orderIdentifier": .string(id), "version": .int(version)])
        case .duplicate:
            .object(["result": .string("duplicate")])
        case .skipped(let reason):
            .object(["result": .string("skipped"), "reason": .string(reason)])
        case .ignored(let reason):
            .object(["result": .string("ignored"), "reason": .string(reason)])
        case .unreadable(let problem):
            .object(["result": .string("unreadable"), "reason": .string(problem)])
        case .invalid(let problems):
            .object([
                "result": .string("invalid"),
                "problems": .array(problems.map { .object(["path": .string($0.path), "message": .string($0.message)]) }),
            ])
        }
    }
}
