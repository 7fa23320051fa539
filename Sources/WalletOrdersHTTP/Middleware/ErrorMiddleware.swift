import Hummingbird
import NIOCore
import NIOHTTP1
import WalletOrdersService
import WalletOrdersStore

/// Turns every error a handler throws into a JSON answer: a request never gets a bare 500 or an empty body.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as MerchantRegistryError {
            throw APIError(error)
        } catch let error as OrderServiceError {
            if case .packagingFailed = error {
                context.logger.error("package build failed", metadata: ["error": "\(error)"])
            }
            throw APIError(error)
        } catch StoreError.unavailable {
            // The client should try again: the database is restarting, or a connection was lost on the way.
            throw APIError(
                .serviceUnavailable,
                "the database cannot be reached right now; try again in a few seconds",
                retryAfter: 5
            )
        } catch StoreError.diskFull {
            context.logger.error("write refused: the database's disk is full")
            throw APIError.diskFull
        } catch is HTTPParserError {
            // Most often a client cut off mid-request (a slow one closed by its timeout): nobody reads this answer.
            throw APIError(.badRequest, "the request could not be read as HTTP/1.1")
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the request body is too large")
        } catch let error as HTTPError {
            let message =
                switch error.status {
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
