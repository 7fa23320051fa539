import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `/api/v1/admin/partners…`: logistics partners and their keys, behind the operator key.
extension OperatorAPI {
    func addPartnerRoutes(to api: RouterGroup<ServiceRequestContext>) {
        api.get("partners", use: partners)
        api.post("partners", use: createPartner)
        api.get("partners/:name", use: partner)
        api.delete("partners/:name", use: removePartner)
        api.delete("partners/:name/merchants/:slug", use: unlinkPartner)
        api.put("partners/:name/provider", use: setProvider)
        api.post("partners/:name/keys", use: createPartnerKey)
        api.delete("partners/:name/keys/:key", use: revokePartnerKey)
    }

    @Sendable func partners(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        JSONResponse.make(.ok, .object(["partners": try JSONValue.encoding(try await registry.partners())]))
    }

    /// `{"name", "merchants": ["acme", …], "provider": "aftership", "providerSecret": "…"}`; the provider is optional.
    @Sendable func createPartner(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.json(limit: 64 * 1_024)
        var problems: [OrderProblem] = []
        let name = body["name"]?.stringValue
        if name == nil { problems.append(OrderProblem(path: "name", message: "is required, a string")) }
        let merchants = body["merchants"]?.arrayValue?.compactMap(\.stringValue)
        if merchants == nil || merchants?.count != body["merchants"]?.arrayValue?.count {
            problems.append(OrderProblem(path: "merchants", message: "is required, an array of merchant slugs"))
        }
        for field in ["provider", "providerSecret"] where body[field] != nil && body[field]?.stringValue == nil {
            problems.append(OrderProblem(path: field, message: "must be a string"))
        }
        guard problems.isEmpty, let name, let merchants else {
            throw APIError(.badRequest, "the partner is not valid", problems: problems)
        }
        let partner = try await registry.addPartner(
            name: name,
            merchantSlugs: merchants,
            provider: body["provider"]?.stringValue,
            providerSecret: body["providerSecret"]?.stringValue
        )
        return JSONResponse.make(.created, .object(["partner": try JSONValue.encoding(partner)]))
    }

    @Sendable func partner(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        let partner = try await registry.partner(name)
        let keys = try await registry.partnerKeys(of: name)
        return JSONResponse.make(.ok, .object(["partner": try JSONValue.encoding(partner), "keys": try JSONValue.encoding(keys)]))
    }

    /// Removes the partner, its keys and the tracking events it sent: `{"removed": name}`.
    @Sendable func removePartner(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        try await registry.removePartner(name)
        return JSONResponse.make(.ok, .object(["removed": .string(name)]))
    }

    /// Stops the partner publishing the updates of one merchant's orders.
    @Sendable func unlinkPartner(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        let slug = try context.parameters.identifier("slug")
        let partner = try await registry.unlinkPartner(name, from: slug)
        return JSONResponse.make(.ok, .object(["partner": try JSONValue.encoding(partner)]))
    }

    /// `{"providerSecret": "…", "provider": "aftership"}`: a new secret for the partner's provider (and the provider
    /// with it; left out, the partner's own).
    @Sendable func setProvider(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        let body = try await request.json(limit: 64 * 1_024)
        var problems: [OrderProblem] = []
        if body.objectValue == nil { throw APIError(.badRequest, "the body must be a JSON object") }
        let secret = body["providerSecret"]?.stringValue
        if secret == nil { problems.append(OrderProblem(path: "providerSecret", message: "is required, a string")) }
        if let provider = body["provider"], provider.stringValue == nil {
            problems.append(OrderProblem(path: "provider", message: "must be a string"))
        }
        guard problems.isEmpty, let secret else { throw APIError(.badRequest, "the partner is not valid", problems: problems) }
        let partner = try await registry.setProviderSecret(of: name, provider: body["provider"]?.stringValue, secret: secret)
        return JSONResponse.make(.ok, .object(["partner": try JSONValue.encoding(partner)]))
    }

    /// A new key, answered this once: `{"id", "key"}`.
    @Sendable func createPartnerKey(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        let (record, text) = try await registry.createPartnerKey(for: name)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(.created, .object(["id": .string(record.id), "key": .string(text)]), headers: headers)
    }

    @Sendable func revokePartnerKey(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let name = try context.parameters.identifier("name")
        let key = try context.parameters.identifier("key")
        try await registry.revokePartnerKey(key, of: name)
        return JSONResponse.make(.ok, .object(["revoked": .string(key)]))
    }
}
