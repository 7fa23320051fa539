import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService

/// The Wallet Orders web service a device calls, under `{webServiceURL}/v1/`.
struct DeviceAPI: Sendable {
    let service: OrderService
    let guards: ClientGuards

    /// Limits on what a device may send; what is kept of log messages is the service's `logLimits`.
    static let registrationBodyLimit = 4_096
    static let logBodyLimit = 256 * 1_024

    func add(to router: Router<ServiceRequestContext>) {
        let v1 = router.group("v1")
        v1.post("devices/:deviceIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier", use: register)
        v1.delete("devices/:deviceIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier", use: unregister)
        v1.get("devices/:deviceIdentifier/registrations/:orderTypeIdentifier", use: changedOrders)
        v1.get("orders/:orderTypeIdentifier/:orderIdentifier", use: order)
        v1.post("log", use: log)
    }

    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (device, type, id) = try Self.registrationPath(context)
        let body = try await request.json(limit: Self.registrationBodyLimit)
        let outcome = try await guards.authenticating(client: context.clientAddress, type: type, id: id) {
            try await service.register(
                device: device,
                type: type,
                id: id,
                token: request.credential(scheme: "AppleOrder"),
                pushToken: body["pushToken"]?.stringValue
            )
        }
        return Response(status: outcome == .created ? .created : .ok)
    }

    @Sendable func unregister(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (device, type, id) = try Self.registrationPath(context)
        try await guards.authenticating(client: context.clientAddress, type: type, id: id) {
            try await service.unregister(device: device, type: type, id: id, token: request.credential(scheme: "AppleOrder"))
        }
        return Response(status: .ok)
    }

    private static func registrationPath(_ context: ServiceRequestContext) throws -> (String, String, String) {
        (
            try context.parameters.identifier("deviceIdentifier"), try context.parameters.identifier("orderTypeIdentifier"),
            try context.parameters.identifier("orderIdentifier")
        )
    }

    @Sendable func changedOrders(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let device = try context.parameters.identifier("deviceIdentifier")
        let type = try context.parameters.identifier("orderTypeIdentifier")
        try guards.take(guards.listing, "listing", client: context.clientAddress)
        // The tag is ours and opaque to Wallet; anything we did not issue counts as no tag at all.
        let tag = request.uri.queryParameters.get("ordersModifiedSince").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
        guard let changed = try await service.changedOrders(device: device, type: type, since: tag),
            !changed.orderIdentifiers.isEmpty
        else {
            return Response(status: .noContent)
        }
        return JSONResponse.make(
            .ok,
            .object([
                "orderIdentifiers": .array(changed.orderIdentifiers.map(JSONValue.string)),
                "lastModified": .string(String(changed.lastModified)),
            ])
        )
    }

    @Sendable func order(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let type = try context.parameters.identifier("orderTypeIdentifier")
        let id = try context.parameters.identifier("orderIdentifier")
        let fetched = try await guards.authenticating(client: context.clientAddress, type: type, id: id) {
            try await service.fetch(
                type: type,
                id: id,
                token: request.credential(scheme: "AppleOrder"),
                unless: Self.condition(request.headers)
            )
        }
        let head = fetched.head
        var headers = HTTPFields()
        headers[.lastModified] = HTTPDate.lastModified(head.updatedAt, serviceNow: service.now())
        headers[.eTag] = Self.entityTag(head.changeTag)
        headers[.cacheControl] = "no-cache"
        guard case .modified(let package) = fetched else { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(PackageFileName.of(id)).order\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: package.package))
    }

    /// An order version's entity tag: its change tag, quoted.
    static func entityTag(_ changeTag: Int64) -> String { "\"\(changeTag)\"" }

    /// What the device says it holds: `If-None-Match` (our entity tags, weak or strong, or `*`) when sent, as it wins
    /// over `If-Modified-Since` (RFC 9110, section 13.2.2); otherwise `If-Modified-Since`. Tags we did not issue
    /// match nothing.
    static func condition(_ headers: HTTPFields) -> FetchCondition {
        if let match = headers[.ifNoneMatch] {
            var tags: Set<Int64> = []
            var any = false
            for item in match.split(separator: ",") {
                var tag = item.trimmingCharacters(in: .whitespaces)
                if tag == "*" { any = true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\""), let value = Int64(tag.dropFirst().dropLast()) {
                    tags.insert(value)
                }
            }
            return .noneMatch(changeTags: tags, any: any)
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) { return .modifiedSince(since) }
        return .none
    }

    @Sendable func log(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        // Wallet stops pushing to a service whose log endpoint fails, so anything readable is answered 200, even
        // past the client's rate limit: then its messages are dropped unread, and counted.
        if let limiter = guards.log, let client = context.clientAddress,
            case .limited = limiter.take(ClientAddress.limiterKey(client))
        {
            guards.metrics.rateLimited("log")
            guards.metrics.deviceLogRequestDropped("rate_limited")
            // Not `Connection: close` to spare reading the body: clients then fail on the bytes they still send
            // (HummingbirdTesting's does), and Wallet must see a 200.
            return Response(status: .ok)
        }
        let buffer = try await request.collectedBody(limit: Self.logBodyLimit)
        guard let logs = (try? JSONValue.parse(Data(buffer: buffer)))?["logs"]?.arrayValue else {
            guards.metrics.deviceLogRequestDropped("unreadable")
            return Response(status: .ok)
        }
        _ = await service.appendLogs(logs.compactMap(\.stringValue), remoteAddress: context.clientAddress)
        return Response(status: .ok)
    }
}
