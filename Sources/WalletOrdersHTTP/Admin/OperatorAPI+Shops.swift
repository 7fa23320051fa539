import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `/api/v1/admin/merchants/{slug}/shops…`: the shops connected to a merchant, behind the operator key. A connection's
/// secret (or UCP sender's key) is taken here and never shown again.
extension OperatorAPI {
    func addShopRoutes(to api: RouterGroup<ServiceRequestContext>) {
        api.get("merchants/:slug/shops", use: shops)
        api.post("merchants/:slug/shops", use: connectShop)
        api.patch("merchants/:slug/shops/:shop", use: changeShop)
        api.delete("merchants/:slug/shops/:shop", use: disconnectShop)
    }

    var shopService: ShopService { ShopService(orders: service) }

    @Sendable func shops(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        return JSONResponse.make(.ok, .object(["shops": try JSONValue.encoding(try await shopService.connections(of: slug))]))
    }

    /// `{"kind": "shopify", "shop": "acme.myshopify.com", "secret": "…", "orderManagementURL": "https://…/{id}",
    /// "skipApplePay": true}`: answered with the connection and the URL its webhooks go to.
    @Sendable func connectShop(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let body = try await request.json(limit: 64 * 1_024)
        var problems: [OrderProblem] = []
        let kind = body["kind"]?.stringValue.flatMap(ShopKind.init(rawValue:))
        if kind == nil {
            let kinds = ShopKind.allCases.map(\.rawValue).joined(separator: ", ")
            problems.append(OrderProblem(path: "kind", message: "is required, one of \(kinds)"))
        }
        for field in ["shop", "secret"] where body[field]?.stringValue == nil {
            problems.append(OrderProblem(path: field, message: "is required, a string"))
        }
        if let url = body["orderManagementURL"], url != .null, url.stringValue == nil {
            problems.append(OrderProblem(path: "orderManagementURL", message: "must be a string"))
        }
        if let skip = body["skipApplePay"], skip.boolValue == nil {
            problems.append(OrderProblem(path: "skipApplePay", message: "must be true or false"))
        }
        guard problems.isEmpty, let kind, let shop = body["shop"]?.stringValue, let secret = body["secret"]?.stringValue else {
            throw APIError(.badRequest, "the shop is not valid", problems: problems)
        }
        let connection = try await shopService.connect(
            merchant: slug,
            kind: kind,
            shop: shop,
            secret: secret,
            orderManagementURL: body["orderManagementURL"]?.stringValue,
            skipApplePay: body["skipApplePay"]?.boolValue ?? true
        )
        return JSONResponse.make(
            .created,
            .object([
                "shop": try JSONValue.encoding(connection),
                "webhookURL": .string("\(service.webServiceURL)/hooks/\(kind.rawValue)/\(connection.id)"),
            ])
        )
    }

    /// `{"secret", "orderManagementURL", "skipApplePay"}`, each optional.
    @Sendable func changeShop(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let id = try context.parameters.identifier("shop")
        let body = try await request.json(limit: 64 * 1_024)
        var problems: [OrderProblem] = []
        for field in ["secret", "orderManagementURL"] where body[field] != nil && body[field]?.stringValue == nil {
            problems.append(OrderProblem(path: field, message: "must be a string"))
        }
        if let skip = body["skipApplePay"], skip.boolValue == nil {
            problems.append(OrderProblem(path: "skipApplePay", message: "must be true or false"))
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the shop is not valid", problems: problems) }
        let connection = try await shopService.change(
            id,
            of: slug,
            secret: body["secret"]?.stringValue,
            orderManagementURL: body["orderManagementURL"]?.stringValue,
            skipApplePay: body["skipApplePay"]?.boolValue
        )
        return JSONResponse.make(.ok, .object(["shop": try JSONValue.encoding(connection)]))
    }

    @Sendable func disconnectShop(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let id = try context.parameters.identifier("shop")
        try await shopService.disconnect(id, of: slug)
        return JSONResponse.make(.ok, .object(["removed": .string(id)]))
    }
}
