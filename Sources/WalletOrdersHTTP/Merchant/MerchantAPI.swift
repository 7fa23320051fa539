import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore

/// The merchant's API under `/api/v1`: create and change orders, read what devices did. Every call acts for the
/// merchant its key speaks for, on that merchant's orders only: another merchant's order answers exactly as a
/// missing one does.
struct MerchantAPI: Sendable {
    let service: OrderService
    let guards: ClientGuards
    /// The merchant's webhooks and download links: features beside the order service.
    var webhooks: WebhookService { WebhookService(orders: service) }
    var links: LinkService { LinkService(orders: service) }

    /// Orders with their assets, base64 included, stay well under this.
    static let bodyLimit = 8 * 1_024 * 1_024
    static let defaultPageSize = 50
    static let maxPageSize = 500

    func add(to router: Router<ServiceRequestContext>) {
        // What a logistics partner's key may call too: a group of its own, whose authenticator admits partners.
        let shared = router.group("api/v1")
            .add(middleware: MerchantKeyMiddleware(service: service, guards: guards, admitsPartners: true))
        shared.patch("orders/:orderTypeIdentifier/:orderIdentifier", use: patch)
        shared.post("tracking-events", use: trackingEvents)
        let api = router.group("api/v1")
            .add(middleware: MerchantKeyMiddleware(service: service, guards: guards, admitsPartners: false))
        api.post("orders", use: create)
        api.post("orders/validate", use: validate)
        api.get("orders", use: list)
        api.post("orders/import", use: importOrders)
        api.get("orders/export", use: exportOrders)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier", use: get)
        api.put("orders/:orderTypeIdentifier/:orderIdentifier", use: replace)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/package", use: package)
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/registrations", use: registrations)
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/links", use: createLink)
        api.delete("orders/:orderTypeIdentifier/:orderIdentifier/links/:linkId", use: revokeLink)
        api.post("webhooks", use: createWebhook)
        api.get("webhooks", use: listWebhooks)
        api.get("webhooks/:webhookId", use: getWebhook)
        api.patch("webhooks/:webhookId", use: changeWebhook)
        api.delete("webhooks/:webhookId", use: deleteWebhook)
        api.post("webhooks/:webhookId/rotate-secret", use: rotateWebhookSecret)
        api.get("webhooks/:webhookId/deliveries", use: webhookDeliveries)
        api.post("webhooks/:webhookId/deliveries/:deliveryId/redeliver", use: redeliver)
        api.get("pushes", use: pushes)
        api.get("logs", use: logs)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        // `warnings` lists what older devices will not show; an order with warnings is stored all the same.
        let written = try await service.create(OrderBody.input(try await request.json(limit: Self.bodyLimit)), for: merchant)
        return JSONResponse.make(
            .created,
            .object([
                "orderDetails": orderDetails(written.order),
                "order": written.order.document.json,
                "warnings": try JSONValue.encoding(written.warnings),
            ])
        )
    }

    /// What the checkout hands Apple Pay for `order` (`PKPaymentOrderDetails`, Payment Request's `orderDetails`).
    private func orderDetails(_ order: StoredOrder) -> JSONValue {
        .object([
            "orderTypeIdentifier": .string(order.orderTypeIdentifier),
            "orderIdentifier": .string(order.orderIdentifier),
            "webServiceURL": .string(service.webServiceURL),
            "authenticationToken": .string(order.authenticationToken),
        ])
    }

    /// The checks of `create` with nothing stored: 200 with the verdict whatever it is; 400 only for a body that is
    /// not JSON, or whose text holds NUL (`JSONBody`).
    @Sendable func validate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let input = try OrderBody.input(try await request.json(limit: Self.bodyLimit))
        return JSONResponse.make(.ok, try JSONValue.encoding(await service.validate(input, for: merchant)))
    }

    @Sendable func get(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let (order, registrations) = try await service.order(type: type, id: id, for: try context.requireMerchant())
        return JSONResponse.make(
            .ok,
            .object([
                "order": order.document.json,
                "version": .int(order.version),
                "registrations": .int(registrations),
            ])
        )
    }

    @Sendable func replace(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let merchant = try context.requireMerchant()
        let input = try OrderBody.input(try await request.json(limit: Self.bodyLimit), assetsKeptWhenAbsent: true)
        return try updated(try await service.replace(type: type, id: id, with: input, for: merchant))
    }

    /// A merchant's change to its order; or a partner's, to the progress of a fulfillment of one of its merchants'
    /// orders, named by Wallet's identifier (`acme:1001`).
    @Sendable func patch(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let mediaType = Self.mediaType(of: request)
        guard mediaType == "application/merge-patch+json" || mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, "PATCH takes a JSON merge patch (Content-Type: application/merge-patch+json)")
        }
        let patch = try OrderBody.patch(try await request.json(limit: Self.bodyLimit))
        if let partner = context.partner {
            // A partner sees what it may change, not the merchant's payment, line items or customer.
            let written = try await service.patch(type: type, walletID: id, patch, by: partner)
            let document = written.order.document
            var shown: [String: JSONValue] = [:]
            for field in ["orderTypeIdentifier", "orderIdentifier", "updatedAt", "fulfillments"] { shown[field] = document[field] }
            return JSONResponse.make(
                .ok,
                .object([
                    "order": .object(shown), "version": .int(written.order.version),
                    "pushesQueued": .int(written.pushesQueued),
                ])
            )
        }
        let merchant = try context.requireMerchant()
        return try updated(try await service.patch(type: type, id: id, patch, for: merchant))
    }

    private func updated(_ written: WrittenOrder) throws -> Response {
        JSONResponse.make(
            .ok,
            .object([
                "order": written.order.document.json, "version": .int(written.order.version),
                "pushesQueued": .int(written.pushesQueued), "warnings": try JSONValue.encoding(written.warnings),
            ])
        )
    }

    @Sendable func package(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let fetched = try await service.package(type: type, id: id, for: try context.requireMerchant())
        var headers = HTTPFields()
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(PackageFileName.of(id)).order\""
        headers[.lastModified] = HTTPDate.lastModified(fetched.head.updatedAt, serviceNow: service.now())
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: fetched.package))
    }

    /// The merchant's orders newest first, or with `orderNumber` its orders with that number of its own, each with
    /// the `orderDetails` a checkout hands Apple Pay and the order's own download link for the shop's emails.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let query = request.uri.queryParameters
        if let number = query.get("orderNumber") {
            guard !number.isEmpty, number.utf8.count <= 256 else {
                throw APIError(.badRequest, "orderNumber must be 1 to 256 bytes")
            }
            let orders = try await service.orders(numbered: number, for: merchant)
            return JSONResponse.make(
                .ok,
                .object([
                    "orders": .array(
                        orders.map {
                            .object([
                                "orderDetails": orderDetails($0), "order": $0.document.json,
                                "downloadURL": .string(
                                    service.ownLinkURL(type: $0.orderTypeIdentifier, id: $0.orderIdentifier, token: $0.authenticationToken)
                                ),
                            ])
                        }
                    )
                ])
            )
        }
        let orders = try await service.orders(OrderFilter(type: query.get("type")), page: try page(request), for: merchant)
        return JSONResponse.make(.ok, try orders.json("orders"))
    }

    @Sendable func registrations(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let registrations = try await service.registrations(type: type, id: id, for: try context.requireMerchant())
        return JSONResponse.make(.ok, .object(["registrations": try JSONValue.encoding(registrations)]))
    }

    @Sendable func pushes(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let query = request.uri.queryParameters
        var filter = PushFilter(type: query.get("type"), id: query.get("order"))
        if let text = query.get("status") {
            guard let status = PushStatus(rawValue: text) else {
                let statuses = PushStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError(.badRequest, "status must be one of \(statuses)")
            }
            filter.status = status
        }
        return JSONResponse.make(.ok, try await service.pushes(filter, page: try page(request), for: merchant).json("pushes"))
    }

    @Sendable func logs(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        return JSONResponse.make(.ok, try await service.logs(LogFilter(), page: try page(request), for: merchant).json("logs"))
    }

    func identifiers(_ context: ServiceRequestContext) throws -> (String, String) {
        (try context.parameters.identifier("orderTypeIdentifier"), try context.parameters.identifier("orderIdentifier"))
    }

    /// `limit` (1 to 500, default 50) and `before` (the `next` of the previous page).
    func page(_ request: Request) throws -> PageRequest {
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
        return PageRequest(limit: limit, before: cursor)
    }
}

extension ServiceRequestContext {
    /// The merchant `MerchantKeyMiddleware` authenticated.
    func requireMerchant() throws -> Merchant {
        guard let merchant else { throw APIError.unauthorized }
        return merchant
    }
}

/// A package's file name: the order's identifier with the characters a file name cannot hold replaced.
enum PackageFileName {
    /// `id` with the characters a `Content-Disposition` file name cannot hold (`/ \ " : ;`, NUL, line breaks) made `-`.
    static func of(_ id: String) -> String {
        // Byte by byte when every byte is printable ASCII, as identifiers are: a walk over the characters showed in
        // the order fetch's profile.
        guard id.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return String(id.map { "/\\\":;\u{0}".contains($0) || $0.isNewline ? "-" : $0 })
        }
        return String(
            decoding: id.utf8.map { byte in
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: ";"):
                    UInt8(ascii: "-")
                default: byte
                }
            },
            as: UTF8.self
        )
    }
}
