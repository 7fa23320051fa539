import Foundation
import Hummingbird
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `/api/v1/admin/merchants…` and `…/partners…`: the operator's HTTP API, which changes merchants, their templates
/// and keys, and logistics partners and theirs, behind the operator key (`operatorKey`); off (404) without one. The
/// admin key, read-only, is not accepted here.
struct OperatorAPI: Sendable {
    let service: OrderService
    let guards: ClientGuards
    let operatorKey: String?

    /// A template and its images, base64 included, stay well under this.
    static let bodyLimit = 8 * 1_024 * 1_024

    func add(to router: Router<ServiceRequestContext>) {
        let api = router.group("api/v1/admin").add(middleware: OperatorKeyMiddleware(operatorKey: operatorKey, guards: guards))
        api.get("merchants", use: list)
        api.post("merchants", use: create)
        api.get("merchants/:slug", use: get)
        api.patch("merchants/:slug", use: update)
        api.get("merchants/:slug/keys", use: keys)
        api.post("merchants/:slug/keys", use: createKey)
        api.delete("merchants/:slug/keys/:key", use: revokeKey)
        api.put("merchants/:slug/template", use: setTemplate)
        api.delete("merchants/:slug/template", use: removeTemplate)
        addPartnerRoutes(to: api)
        addShopRoutes(to: api)
    }

    var registry: MerchantRegistry { MerchantRegistry(service: service) }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        JSONResponse.make(.ok, .object(["merchants": try JSONValue.encoding(try await registry.list())]))
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.json(limit: 64 * 1_024)
        guard let slug = body["slug"]?.stringValue, let name = body["displayName"]?.stringValue else {
            throw APIError(
                .badRequest,
                "a merchant needs a slug and a displayName",
                problems: [OrderProblem(path: body["slug"] == nil ? "slug" : "displayName", message: "is required")]
            )
        }
        let change = try MerchantBody.change(body)
        let merchant = try await registry.add(
            slug: slug,
            displayName: name,
            orderTypes: change.orderTypes ?? [],
            limits: change.limits ?? MerchantLimits(),
            stalledParcelAfterHours: change.stalledParcelAfterHours ?? nil
        )
        return JSONResponse.make(.created, .object(["merchant": try JSONValue.encoding(merchant)]))
    }

    @Sendable func get(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let merchant = try await registry.merchant(slug)
        let keys = try await registry.keys(of: slug)
        return JSONResponse.make(
            .ok,
            .object(["merchant": try JSONValue.encoding(merchant), "keys": try JSONValue.encoding(keys)])
        )
    }

    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let change = try MerchantBody.change(try await request.json(limit: 64 * 1_024))
        let merchant = try await registry.update(slug, change)
        return JSONResponse.make(.ok, .object(["merchant": try JSONValue.encoding(merchant)]))
    }

    @Sendable func keys(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        return JSONResponse.make(.ok, .object(["keys": try JSONValue.encoding(try await registry.keys(of: slug))]))
    }

    /// A new key, answered this once: `{"id", "key"}`.
    @Sendable func createKey(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let (record, text) = try await registry.createKey(for: slug)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(.created, .object(["id": .string(record.id), "key": .string(text)]), headers: headers)
    }

    @Sendable func revokeKey(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let key = try context.parameters.identifier("key")
        try await registry.revokeKey(key, of: slug)
        return JSONResponse.make(.ok, .object(["revoked": .string(key)]))
    }

    /// `{"defaults": {…default order fields…}, "files": {"logo.png": "<base64>", "en.lproj/order.strings": "<base64>"}}`
    @Sendable func setTemplate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let body = try await request.json(limit: Self.bodyLimit)
        guard body.objectValue != nil else { throw APIError(.badRequest, "the body must be a JSON object") }
        let files = try OrderBody.decodeAssets(body["files"] ?? .object([:]), path: "files")
        let defaults = body["defaults"].flatMap { $0 == .null ? nil : $0 }
        let merchant = try await registry.setTemplate(of: slug, files: files, defaults: defaults)
        return JSONResponse.make(.ok, .object(["merchant": try JSONValue.encoding(merchant)]))
    }

    @Sendable func removeTemplate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let slug = try context.parameters.identifier("slug")
        let merchant = try await registry.removeTemplate(of: slug)
        return JSONResponse.make(.ok, .object(["merchant": try JSONValue.encoding(merchant)]))
    }
}

/// A merchant's fields as the operator's API takes them: `displayName`, `status` (`active` or `suspended`),
/// `orderTypes`, `limits` {`requestsPerSecond`, `maxOrders`, `maxAssetBytes`} (null for none) and
/// `stalledParcelAfterHours` (null: off).
enum MerchantBody {
    static func change(_ body: JSONValue) throws -> MerchantChange {
        guard body.objectValue != nil else { throw APIError(.badRequest, "the body must be a JSON object") }
        var change = MerchantChange()
        var problems: [OrderProblem] = []
        if let name = body["displayName"] {
            if let text = name.stringValue {
                change.displayName = text
            } else {
                problems.append(OrderProblem(path: "displayName", message: "must be a string"))
            }
        }
        if let status = body["status"] {
            if let text = status.stringValue, let value = MerchantStatus(rawValue: text) {
                change.status = value
            } else {
                problems.append(OrderProblem(path: "status", message: "must be active or suspended"))
            }
        }
        if let types = body["orderTypes"] {
            if let list = types.arrayValue?.compactMap(\.stringValue), list.count == types.arrayValue?.count {
                change.orderTypes = list
            } else {
                problems.append(OrderProblem(path: "orderTypes", message: "must be an array of order type identifiers"))
            }
        }
        if let limits = body["limits"] {
            guard limits.objectValue != nil else { throw APIError(.badRequest, "limits must be an object") }
            var parsed = MerchantLimits()
            for (key, path) in [
                ("requestsPerSecond", \MerchantLimits.requestsPerSecond), ("maxOrders", \MerchantLimits.maxOrders),
                ("maxAssetBytes", \MerchantLimits.maxAssetBytes),
            ] {
                switch limits[key] {
                case nil, .null?: break
                case let value?:
                    guard let number = value.intValue else {
                        problems.append(OrderProblem(path: "limits.\(key)", message: "must be a whole number, or null"))
                        continue
                    }
                    parsed[keyPath: path] = number
                }
            }
            change.limits = parsed
        }
        switch body["stalledParcelAfterHours"] {
        case nil: break
        case .null?: change.stalledParcelAfterHours = .some(nil)
        case let value?:
            if let hours = value.intValue {
                change.stalledParcelAfterHours = .some(hours)
            } else {
                problems.append(OrderProblem(path: "stalledParcelAfterHours", message: "must be a whole number of hours, or null"))
            }
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the merchant is not valid", problems: problems) }
        return change
    }
}

/// Lets a request through only with the operator key (Bearer), compared in constant time; failures count against
/// the client's authentication failures. Without an operator key, the routes are off.
struct OperatorKeyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let operatorKey: String?
    let guards: ClientGuards

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let operatorKey else {
            throw APIError(.notFound, "the operator API is off: set operatorKey (WALLET_ORDERS_OPERATOR_KEY)")
        }
        let key = request.credential(scheme: "Bearer")
        _ = try await guards.authenticatingKey(client: context.clientAddress, key: key) { () -> Bool? in
            guard let key, ConstantTime.equals(key, operatorKey) else { return nil }
            return true
        }
        return try await next(request, context)
    }
}
