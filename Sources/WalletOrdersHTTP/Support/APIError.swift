import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import WalletOrdersModel
import WalletOrdersService

/// A refusal with its HTTP status and a JSON body that names the problem:
/// `{"error": "…", "problems": [{"path": "…", "message": "…"}]}`, and `"limit"` naming the limit a refusal is for.
public struct APIError: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let message: String
    public let problems: [OrderProblem]
    /// Seconds to wait before asking again, sent as `Retry-After` (429, 507).
    public let retryAfter: Int?
    /// The limit that refused the request (`maxOrders`, …).
    public let limit: String?

    public init(
        _ status: HTTPResponse.Status,
        _ message: String,
        problems: [OrderProblem] = [],
        retryAfter: Int? = nil,
        limit: String? = nil
    ) {
        self.status = status
        self.message = message
        self.problems = problems
        self.retryAfter = retryAfter
        self.limit = limit
    }

    /// The answer; what its texts quote of the request is cut short (`ErrorText`).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body: [String: JSONValue] = ["error": .string(ErrorText.clipped(message))]
        if let limit { body["limit"] = .string(limit) }
        if !problems.isEmpty {
            body["problems"] = .array(
                problems.map {
                    .object(["path": .string(ErrorText.clipped($0.path)), "message": .string(ErrorText.clipped($0.message))])
                }
            )
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized {
            // Devices authenticate with their order's token, merchants with a bearer key.
            headers[.wwwAuthenticate] = request.uri.path.hasPrefix("/v1/") ? "AppleOrder" : "Bearer"
        }
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: JSONValue.object(body).serialized()))
        )
    }

    public static let unauthorized = APIError(.unauthorized, "missing or wrong credentials")
    public static let orderNotFound = APIError(.notFound, "no such order")
    /// A write the store refused because the database's disk is full (507 Insufficient Storage, RFC 4918): it was
    /// rolled back whole, and the same request succeeds once the operator has made room, with no restart.
    public static let diskFull = APIError(
        HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"),
        "the database's disk is full: the write was refused and nothing of it was stored; send it again once there is room",
        retryAfter: 60
    )

    /// A client over one of its rate limits.
    static func tooManyRequests(retryAfter: Int) -> APIError {
        APIError(.tooManyRequests, "too many requests from this client; try again in \(retryAfter) s", retryAfter: retryAfter)
    }

    /// The answer to a refusal of the order service: the one place where its errors become statuses.
    init(_ error: OrderServiceError) {
        switch error {
        case .invalidOrder(let message, let problems): self.init(.badRequest, message, problems: problems)
        case .unauthorized: self = .unauthorized
        case .orderNotFound: self = .orderNotFound
        case .orderExists, .writeConflict: self.init(.conflict, error.description)
        case .packageTooLarge: self.init(.contentTooLarge, error.description)
        case .packagingFailed: self.init(.internalServerError, "the package could not be built")
        case .limitReached(let quota, _): self.init(.forbidden, error.description, limit: quota.rawValue)
        // Wallet keeps the order and tries the registration again later; an hour is long enough not to be busy.
        case .tooManyDevices: self.init(.tooManyRequests, error.description, retryAfter: 3_600)
        case .linkNotFound: self.init(.notFound, error.description)
        case .tooManyLinks: self.init(.conflict, error.description)
        case .webhookNotFound: self.init(.notFound, error.description)
        case .tooManyWebhooks, .webhookDisabled: self.init(.conflict, error.description)
        case .merchantSuspended: self.init(.forbidden, error.description)
        case .notPartnersToChange(let problems):
            self.init(
                .forbidden,
                "a partner key may change only the progress of fulfillments; these fields are the merchant's",
                problems: problems
            )
        }
    }

    /// The answer to a refusal of the merchant registry.
    init(_ error: MerchantRegistryError) {
        switch error {
        case .invalid(let problems, let what): self.init(.badRequest, "the \(what) is not valid", problems: problems)
        case .notFound, .keyNotFound, .partnerNotFound, .partnerKeyNotFound, .partnerNotLinked:
            self.init(.notFound, error.description)
        case .exists, .partnerExists, .partnerNeedsMerchant: self.init(.conflict, error.description)
        }
    }
}

extension ByteBuffer {
    init(data: Data) {
        self.init(bytes: data)
    }
}
