import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// A merchant's webhook endpoints and what was sent to them.
extension MerchantAPI {
    static let webhookBodyLimit = 8_192

    /// `POST /api/v1/webhooks` `{"url", "events"}`: 201 with the endpoint and its secret, shown this once.
    @Sendable func createWebhook(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let body = try await Self.webhookBody(request, fields: ["url", "events"])
        guard let url = body.url else {
            throw APIError(.badRequest, "the webhook is not valid", problems: [OrderProblem(path: "url", message: "is required")])
        }
        let endpoint = try await webhooks.create(url: url, events: body.events, for: merchant)
        return Self.noStore(JSONResponse.make(.created, Self.json(endpoint, secret: true)))
    }

    /// `GET /api/v1/webhooks`: the merchant's endpoints, without their secrets.
    @Sendable func listWebhooks(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let endpoints = try await webhooks.endpoints(for: try context.requireMerchant())
        return JSONResponse.make(.ok, .object(["webhooks": .array(endpoints.map { Self.json($0, secret: false) })]))
    }

    /// `GET /api/v1/webhooks/{webhookId}`.
    @Sendable func getWebhook(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let endpoint = try await webhooks.endpoint(try webhookID(context), for: try context.requireMerchant())
        return JSONResponse.make(.ok, Self.json(endpoint, secret: false))
    }

    /// `PATCH /api/v1/webhooks/{webhookId}` `{"url", "events", "enabled"}`, each optional.
    @Sendable func changeWebhook(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let body = try await Self.webhookBody(request, fields: ["url", "events", "enabled"])
        let endpoint = try await webhooks.change(
            try webhookID(context),
            url: body.url,
            events: body.events,
            enabled: body.enabled,
            for: merchant
        )
        return JSONResponse.make(.ok, Self.json(endpoint, secret: false))
    }

    /// `DELETE /api/v1/webhooks/{webhookId}`: 204.
    @Sendable func deleteWebhook(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await webhooks.delete(try webhookID(context), for: try context.requireMerchant())
        return Response(status: .noContent)
    }

    /// `POST /api/v1/webhooks/{webhookId}/rotate-secret`: the endpoint with its new secret, shown this once.
    @Sendable func rotateWebhookSecret(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let endpoint = try await webhooks.rotateSecret(try webhookID(context), for: try context.requireMerchant())
        return Self.noStore(JSONResponse.make(.ok, Self.json(endpoint, secret: true)))
    }

    /// `GET /api/v1/webhooks/{webhookId}/deliveries`: newest first, one page (`limit`, `before`).
    @Sendable func webhookDeliveries(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let page = try await webhooks.deliveries(try webhookID(context), page: try page(request), for: merchant)
        var body: [String: JSONValue] = ["deliveries": .array(page.records.map { Self.json($0, for: merchant) })]
        if let next = page.next { body["next"] = .string(String(next)) }
        return JSONResponse.make(.ok, .object(body))
    }

    /// `POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`: 202, the delivery queued again.
    @Sendable func redeliver(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        guard let text = context.parameters.get("deliveryId"), let deliveryID = Int64(text), deliveryID > 0 else {
            throw APIError(.badRequest, "deliveryId must be the id of a delivery")
        }
        let delivery = try await webhooks.redeliver(deliveryID, of: try webhookID(context), for: merchant)
        return JSONResponse.make(.accepted, Self.json(delivery, for: merchant))
    }

    private func webhookID(_ context: ServiceRequestContext) throws -> String {
        try context.parameters.identifier("webhookId")
    }

    private static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The fields of a webhook body: a JSON object of `fields` and no others.
    private static func webhookBody(
        _ request: Request,
        fields: Set<String>
    ) async throws
        -> (url: String?, events: [String]?, enabled: Bool?)
    {
        let buffer = try await request.collectedBody(limit: webhookBodyLimit)
        let json = try JSONBody.parse(Data(buffer: buffer))
        guard case .object(let members) = json else {
            throw APIError(.badRequest, "the body must be a JSON object: {\"url\": \"https://…\", \"events\": [\"order.updated\"]}")
        }
        var body: (url: String?, events: [String]?, enabled: Bool?) = (nil, nil, nil)
        var problems: [OrderProblem] = []
        for (key, value) in members {
            switch (key, value) {
            case (_, _) where !fields.contains(key):
                let names = fields.sorted().joined(separator: ", ")
                problems.append(OrderProblem(path: key, message: "is not a field here; \(names) are"))
            case (_, .null): break
            case ("url", .string(let url)): body.url = url
            case ("url", _): problems.append(OrderProblem(path: key, message: "must be a string"))
            case ("events", .array(let items)):
                let names = items.compactMap(\.stringValue)
                if names.count == items.count {
                    body.events = names
                } else {
                    problems.append(OrderProblem(path: key, message: "must be an array of event names"))
                }
            case ("events", _): problems.append(OrderProblem(path: key, message: "must be an array of event names"))
            case ("enabled", .bool(let enabled)): body.enabled = enabled
            default: problems.append(OrderProblem(path: key, message: "must be true or false"))
            }
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the webhook is not valid", problems: problems) }
        return body
    }

    static func json(_ endpoint: WebhookEndpoint, secret: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(endpoint.id),
            "url": .string(endpoint.url),
            "events": .array(endpoint.events.map { .string($0.rawValue) }),
            "enabled": .bool(endpoint.disabledAt == nil),
            "createdAt": .string(RFC3339.format(endpoint.createdAt)),
            "updatedAt": .string(RFC3339.format(endpoint.updatedAt)),
        ]
        if let disabledAt = endpoint.disabledAt { object["disabledAt"] = .string(RFC3339.format(disabledAt)) }
        if let reason = endpoint.disabledReason { object["disabledReason"] = .string(reason) }
        if secret { object["secret"] = .string(endpoint.secret) }
        return .object(object)
    }

    static func json(_ delivery: WebhookDelivery, for merchant: Merchant) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(String(delivery.id)),
            "messageId": .string(delivery.messageID),
            "event": .string(delivery.event.rawValue),
            "orderTypeIdentifier": .string(delivery.orderTypeIdentifier),
            "orderIdentifier": .string(merchant.ownIdentifier(delivery.orderIdentifier)),
            "status": .string(delivery.status.rawValue),
            "attempts": .int(delivery.attempts),
            "occurredAt": .string(RFC3339.format(delivery.occurredAt)),
            "updatedAt": .string(RFC3339.format(delivery.updatedAt)),
        ]
        if delivery.status == .pending { object["nextAttemptAt"] = .string(RFC3339.format(delivery.nextAttemptAt)) }
        if let code = delivery.lastStatusCode { object["lastStatusCode"] = .int(code) }
        if let error = delivery.lastError { object["lastError"] = .string(error) }
        return .object(object)
    }
}
