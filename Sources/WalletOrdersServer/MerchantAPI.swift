import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// The merchant's API under `/api/v1`: create and change orders, read what devices did.
struct MerchantAPI: Sendable {
    let service: OrderService
    let merchantKeys: [String]

    /// Orders with their assets, base64 included, stay well under this.
    static let bodyLimit = 8 * 1_024 * 1_024
    static let defaultPageSize = 50
    static let maxPageSize = 500

    func add(to router: Router<ServiceRequestContext>) {
        let api = router.group("api/v1").add(middleware: BearerKeyMiddleware(keys: merchantKeys))
        api.post("orders", use: create)
        api.get("orders", use: list)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier", use: get)
        api.put("orders/:orderTypeIdentifier/:orderIdentifier", use: replace)
        api.patch("orders/:orderTypeIdentifier/:orderIdentifier", use: patch)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/package", use: package)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/registrations", use: registrations)
        api.get("pushes", use: pushes)
        api.get("logs", use: logs)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let order = try await service.create(request.json(limit: Self.bodyLimit))
        return JSONResponse.make(.created, .object([
            "orderDetails": .object([
                "orderTypeIdentifier": .string(order.orderTypeIdentifier),
                "orderIdentifier": .string(order.orderIdentifier),
                "webServiceURL": .string(service.webServiceURL),
                "authenticationToken": .string(order.authenticationToken),
            ]),
            "order": order.document.json,
        ]))
    }

    @Sendable func get(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        guard let order = try await service.store.order(type: type, id: id) else { throw APIError.orderNotFound }
        let registrations = try await service.store.registrations(type: type, id: id)
        return JSONResponse.make(.ok, .object([
            "order": order.document.json,
            "version": .int(order.version),
            "registrations": .int(registrations.count),
        ]))
    }

    @Sendable func replace(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let (order, queued) = try await service.replace(type: type, id: id, body: request.json(limit: Self.bodyLimit))
        return updated(order, queued)
    }

    @Sendable func patch(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/merge-patch+json" || mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, "PATCH takes a JSON merge patch (Content-Type: application/merge-patch+json)")
        }
        let (order, queued) = try await service.patch(type: type, id: id, patch: request.json(limit: Self.bodyLimit))
        return updated(order, queued)
    }

    private func updated(_ order: StoredOrder, _ queued: Int) -> Response {
        JSONResponse.make(.ok, .object([
            "order": order.document.json, "version": .int(order.version), "pushesQueued": .int(queued),
        ]))
    }

    @Sendable func package(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        guard let head = try await service.store.orderHead(type: type, id: id) else { throw APIError.orderNotFound }
        let data = try await service.package(type: type, id: id, head: head)
        var headers = HTTPFields()
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(id).order\""
        headers[.lastModified] = HTTPDate.format(head.updatedAt)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let type = query.get("type")
        let (limit, cursor) = try page(request)
        let orders = try await service.store.orders(type: type, before: cursor, limit: limit)
        var body: [String: JSONValue] = ["orders": .array(orders.map { order in
            .object([
                "orderTypeIdentifier": .string(order.orderTypeIdentifier),
                "orderIdentifier": .string(order.orderIdentifier),
                "status": .string(order.status),
                "createdAt": .date(order.createdAt),
                "updatedAt": .date(order.updatedAt),
                "version": .int(order.version),
                "registrations": .int(order.registrations),
            ])
        })]
        if orders.count == limit, let last = orders.last { body["next"] = .string(String(last.cursor)) }
        return JSONResponse.make(.ok, .object(body))
    }

    @Sendable func registrations(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        guard try await service.store.orderHead(type: type, id: id) != nil else { throw APIError.orderNotFound }
        let registrations = try await service.store.registrations(type: type, id: id)
        return JSONResponse.make(.ok, .object(["registrations": .array(registrations.map { registration in
            .object([
                "deviceIdentifier": .string(registration.deviceIdentifier),
                "pushToken": .string(registration.pushToken),
                "createdAt": .date(registration.createdAt),
                "updatedAt": .date(registration.updatedAt),
            ])
        })]))
    }

    @Sendable func pushes(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let status = request.uri.queryParameters.get("status")
        if let status, !["pending", "sending", "delivered", "failed"].contains(status) {
            throw APIError(.badRequest, "status must be one of pending, sending, delivered, failed")
        }
        let (limit, cursor) = try page(request)
        let pushes = try await service.store.pushes(
            status: status, type: request.uri.queryParameters.get("type"),
            id: request.uri.queryParameters.get("order"), before: cursor, limit: limit)
        var body: [String: JSONValue] = ["pushes": .array(pushes.map { push in
            var fields: [String: JSONValue] = [
                "id": .int(Int(push.id)),
                "orderTypeIdentifier": .string(push.orderTypeIdentifier),
                "orderIdentifier": .string(push.orderIdentifier),
                "deviceIdentifier": .string(push.deviceIdentifier),
                "status": .string(push.status),
                "attempts": .int(push.attempts),
                "nextAttemptAt": .date(push.nextAttemptAt),
                "createdAt": .date(push.createdAt),
                "updatedAt": .date(push.updatedAt),
            ]
            if let error = push.lastError { fields["lastError"] = .string(error) }
            return .object(fields)
        })]
        if pushes.count == limit, let last = pushes.last { body["next"] = .string(String(last.id)) }
        return JSONResponse.make(.ok, .object(body))
    }

    @Sendable func logs(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (limit, cursor) = try page(request)
        let entries = try await service.store.logs(before: cursor, limit: limit)
        var body: [String: JSONValue] = ["logs": .array(entries.map { entry in
            .object([
                "id": .int(Int(entry.id)),
                "receivedAt": .date(entry.receivedAt),
                "remoteAddress": entry.remoteAddress.map(JSONValue.string) ?? .null,
                "message": .string(entry.message),
            ])
        })]
        if entries.count == limit, let last = entries.last { body["next"] = .string(String(last.id)) }
        return JSONResponse.make(.ok, .object(body))
    }

    private func identifiers(_ context: ServiceRequestContext) throws -> (String, String) {
        (try context.parameters.identifier("orderTypeIdentifier"), try context.parameters.identifier("orderIdentifier"))
    }

    /// `limit` (1 to 500, default 50) and `before` (the `next` of the previous page).
    private func page(_ request: Request) throws -> (Int, Int64?) {
        let query = request.uri.queryParameters
        var limit = Self.defaultPageSize
        if let text = query.get("limit") {
            guard let value = Int(text), (1...Self.maxPageSize).contains(value) else {
                throw APIError(.badRequest, "limit must be a whole number from 1 to \(Self.maxPageSize)")
            }
            limit = value
        }
        var cursor: Int64?
        if let text = query.get("before") {
            guard let value = Int64(text) else { throw APIError(.badRequest, "before must be the next value of a previous page") }
            cursor = value
        }
        return (limit, cursor)
    }
}

/// Lets a request through only with `Authorization: Bearer <key>` for one of `keys`, compared in constant time.
struct BearerKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.credential(scheme: "Bearer"), !keys.isEmpty, ConstantTime.matchesAny(key, keys) else {
            throw APIError.unauthorized
        }
        return try await next(request, context)
    }
}
