import Foundation
import Hummingbird
import Logging
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// The Wallet Orders web service a device calls, under `{webServiceURL}/v1/`.
struct DeviceAPI: Sendable {
    let service: OrderService

    /// Limits on what a device may send.
    static let registrationBodyLimit = 4_096
    static let logBodyLimit = 256 * 1_024
    static let maxLogMessages = 100
    static let maxLogMessageLength = 4_096
    static let maxPushTokenLength = 512

    func add(to router: Router<ServiceRequestContext>) {
        let v1 = router.group("v1")
        v1.post("devices/:deviceIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier", use: register)
        v1.delete("devices/:deviceIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier", use: unregister)
        v1.get("devices/:deviceIdentifier/registrations/:orderTypeIdentifier", use: changedOrders)
        v1.get("orders/:orderTypeIdentifier/:orderIdentifier", use: order)
        v1.post("log", use: log)
    }

    /// Checks the `AppleOrder` token against the order's. Unknown orders and wrong tokens answer alike, so the
    /// API does not tell which orders exist.
    private func authorize(_ request: Request, type: String, id: String) async throws -> OrderHead {
        try Self.check(request, try await service.store.orderHead(type: type, id: id))
    }

    private static func check(_ request: Request, _ head: OrderHead?) throws -> OrderHead {
        let token = request.credential(scheme: "AppleOrder")
        guard let head else {
            // Compare anyway, so an unknown order takes as long to refuse as a wrong token.
            _ = ConstantTime.equals(token ?? "", String(repeating: "0", count: 64))
            throw APIError.unauthorized
        }
        guard let token, ConstantTime.equals(token, head.authenticationToken) else { throw APIError.unauthorized }
        return head
    }

    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let device = try context.parameters.identifier("deviceIdentifier")
        let type = try context.parameters.identifier("orderTypeIdentifier")
        let id = try context.parameters.identifier("orderIdentifier")
        _ = try await authorize(request, type: type, id: id)
        let body = try await request.json(limit: Self.registrationBodyLimit)
        guard let pushToken = body["pushToken"]?.stringValue, !pushToken.isEmpty,
              pushToken.count <= Self.maxPushTokenLength,
              pushToken.allSatisfy({ $0.isHexDigit }) else {
            throw APIError(.badRequest, "the body must be {\"pushToken\": \"<hex>\"}",
                           problems: [OrderProblem(path: "pushToken", message: "must be the device's hex push token")])
        }
        let outcome = try await service.store.register(
            device: device, type: type, id: id, pushToken: pushToken.lowercased(), now: service.now())
        return Response(status: outcome == .created ? .created : .ok)
    }

    @Sendable func unregister(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let device = try context.parameters.identifier("deviceIdentifier")
        let type = try context.parameters.identifier("orderTypeIdentifier")
        let id = try context.parameters.identifier("orderIdentifier")
        _ = try await authorize(request, type: type, id: id)
        try await service.store.unregister(device: device, type: type, id: id)
        return Response(status: .ok)
    }

    @Sendable func changedOrders(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let device = try context.parameters.identifier("deviceIdentifier")
        let type = try context.parameters.identifier("orderTypeIdentifier")
        // The tag is ours and opaque to Wallet; anything we did not issue counts as no tag at all.
        let tag = request.uri.queryParameters.get("ordersModifiedSince").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
        guard let changed = try await service.store.changedOrders(device: device, type: type, since: tag),
              !changed.orderIdentifiers.isEmpty else {
            return Response(status: .noContent)
        }
        return JSONResponse.make(.ok, .object([
            "orderIdentifiers": .array(changed.orderIdentifiers.map(JSONValue.string)),
            "lastModified": .string(String(changed.lastModified)),
        ]))
    }

    @Sendable func order(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let type = try context.parameters.identifier("orderTypeIdentifier")
        let id = try context.parameters.identifier("orderIdentifier")
        // One read for the token check, the cache headers and the stored package.
        let found = try await service.store.orderForFetch(type: type, id: id)
        let head = try Self.check(request, found?.head)
        let etag = "\"\(head.changeTag)\""
        var headers = HTTPFields()
        headers[.lastModified] = HTTPDate.format(head.updatedAt)
        headers[.eTag] = etag
        headers[.cacheControl] = "no-cache"
        // If-None-Match wins over If-Modified-Since when both are sent (RFC 9110, section 13.2.2).
        if let match = request.headers[.ifNoneMatch] {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains(etag) || tags.contains("W/\(etag)") || tags.contains("*") {
                return Response(status: .notModified, headers: headers)
            }
        } else if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse), head.updatedAt <= since {
            return Response(status: .notModified, headers: headers)
        }
        let package: Data
        if let stored = found?.package {
            service.metrics.packageCacheHit()
            package = stored
        } else {
            package = try await service.package(type: type, id: id, head: head)
        }
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(id).order\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: package)))
    }

    @Sendable func log(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        // Wallet stops pushing to a service whose log endpoint fails, so anything readable is answered 200.
        let buffer = try await request.body.collect(upTo: Self.logBodyLimit)
        let messages = (try? JSONValue.parse(Data(buffer: buffer)))?["logs"]?.arrayValue?
            .prefix(Self.maxLogMessages)
            .compactMap { $0.stringValue.map { String($0.prefix(Self.maxLogMessageLength)) } } ?? []
        let address = context.remoteAddress?.ipAddress
        try await service.store.appendLogs(messages, remoteAddress: address, now: service.now())
        return Response(status: .ok)
    }
}
