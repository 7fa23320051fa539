import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService

/// A merchant's download links: made for its order pages and emails, revoked when it wants.
extension MerchantAPI {
    static let linkBodyLimit = 4_096

    /// `POST …/links` with no body, or `{"expiresIn": seconds, "reusable": true}`: 201 with the link's id, URL and
    /// expiry. The URL is shown this once.
    @Sendable func createLink(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let merchant = try context.requireMerchant()
        let buffer = try await request.collectedBody(limit: Self.linkBodyLimit)
        let link = try await links.create(type: type, id: id, for: merchant, try Self.linkRequest(Data(buffer: buffer)))
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(
            .created,
            .object([
                "id": .string(link.id),
                "url": .string(link.url),
                "expiresAt": .string(RFC3339.format(link.expiresAt)),
                "reusable": .bool(link.reusable),
            ]),
            headers: headers
        )
    }

    /// `DELETE …/links/{linkId}`: 204, and the link answers 404 from then on.
    @Sendable func revokeLink(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try identifiers(context)
        let linkID = try context.parameters.identifier("linkId")
        try await links.revoke(linkID, type: type, id: id, for: try context.requireMerchant())
        return Response(status: .noContent)
    }

    /// The link a body asks for; an empty body asks for the default one.
    static func linkRequest(_ body: Data) throws -> LinkRequest {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) else { return LinkRequest() }
        let json = try JSONBody.parse(body)
        guard case .object(let members) = json else {
            throw APIError(.badRequest, "the body must be a JSON object: {\"expiresIn\": seconds, \"reusable\": true}")
        }
        var request = LinkRequest()
        var problems: [OrderProblem] = []
        for (key, value) in members {
            switch (key, value) {
            case ("expiresIn", .int(let seconds)): request.expiresIn = seconds
            case ("expiresIn", .null), ("reusable", .null): break
            case ("expiresIn", _): problems.append(OrderProblem(path: key, message: "must be a whole number of seconds"))
            case ("reusable", .bool(let reusable)): request.reusable = reusable
            case ("reusable", _): problems.append(OrderProblem(path: key, message: "must be true or false"))
            default: problems.append(OrderProblem(path: key, message: "is not a field of a link; expiresIn and reusable are"))
            }
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the link is not valid", problems: problems) }
        return request
    }
}
