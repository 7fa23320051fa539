import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import WalletOrdersModel
import WalletOrdersService

/// A refusal with its HTTP status and a JSON body that names the problem:
/// `{"error": "…", "problems": [{"path": "…", "message": "…"}]}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let message: String
    public let problems: [OrderProblem]
    /// Seconds to wait before asking again, sent as `Retry-After` (429).
    public let retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ message: String, problems: [OrderProblem] = [], retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.problems = problems
        self.retryAfter = retryAfter
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body: [String: JSONValue] = ["error": .string(message)]
        if !problems.isEmpty {
            body["problems"] = .array(problems.map { .object(["path": .string($0.path), "message": .string($0.message)]) })
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized {
            // Devices authenticate with their order's token, merchants with a bearer key.
            headers[.wwwAuthenticate] = request.uri.path.hasPrefix("/v1/") ? "AppleOrder" : "Bearer"
        }
        return Response(status: status, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(data: JSONValue.object(body).serialized())))
    }

    static let unauthorized = APIError(.unauthorized, "missing or wrong credentials")
    static let orderNotFound = APIError(.notFound, "no such order")

    /// A client over one of its rate limits.
    static func tooManyRequests(retryAfter: Int) -> APIError {
        APIError(.tooManyRequests, "too many requests from this client; try again in \(retryAfter) s", retryAfter: retryAfter)
    }

    /// The answer to a refusal of the order service: the one place where its errors become statuses.
    init(_ error: OrderServiceError) {
        switch error {
        case .badRequest(let message): self.init(.badRequest, message)
        case .invalidOrder(let message, let problems): self.init(.badRequest, message, problems: problems)
        case .unauthorized: self = .unauthorized
        case .orderNotFound: self = .orderNotFound
        case .orderExists, .writeConflict: self.init(.conflict, error.description)
        case .packageTooLarge: self.init(.contentTooLarge, error.description)
        case .packagingFailed: self.init(.internalServerError, "the package could not be built")
        }
    }
}

/// Turns every error a handler throws into a JSON answer: a request never gets a bare 500 or an empty body.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as OrderServiceError {
            if case .packagingFailed = error {
                context.logger.error("package build failed", metadata: ["error": "\(error)"])
            }
            throw APIError(error)
        } catch is HTTPParserError {
            // Most often a client cut off mid-request (a slow one closed by its timeout): nobody reads this answer.
            throw APIError(.badRequest, "the request could not be read as HTTP/1.1")
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the request body is too large")
        } catch let error as HTTPError {
            let message = switch error.status {
            case .notFound: "no such endpoint: \(request.method) \(request.uri.path)"
            case .contentTooLarge: "the request body is too large"
            case .methodNotAllowed: "\(request.method) is not allowed here"
            default: error.body ?? error.status.reasonPhrase
            }
            throw APIError(error.status, message)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            throw APIError(.internalServerError, "the server could not complete the request")
        }
    }
}

extension ByteBuffer {
    init(data: Data) {
        self.init(bytes: data)
    }
}
