import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import WalletOrdersService
import WalletOrdersStore

extension APIError {
    /// The JSON answer to any error a handler threw for `request` (`ServiceMiddleware` answers every error with
    /// one): what the service and the store refuse becomes its status, and anything unforeseen a 500 that says no
    /// more than that, its type logged.
    init(answering error: any Error, to request: Request, logger: Logger) {
        switch error {
        case let error as APIError:
            self = error
        case let error as MerchantRegistryError:
            self.init(error)
        case let error as OrderServiceError:
            if case .packagingFailed = error {
                logger.error("package build failed", metadata: ["error": "\(error)"])
            }
            self.init(error)
        case StoreError.unavailable:
            // The client should try again: the database is restarting, or a connection was lost on the way.
            self.init(.serviceUnavailable, "the database cannot be reached right now; try again in a few seconds", retryAfter: 5)
        case StoreError.diskFull:
            logger.error("write refused: the database's disk is full")
            self = .diskFull
        case is HTTPParserError:
            // Most often a client cut off mid-request (a slow one closed by its timeout): nobody reads this answer.
            self.init(.badRequest, "the request could not be read as HTTP/1.1")
        case is NIOTooManyBytesError:
            self.init(.contentTooLarge, "the request body is too large")
        case let error as HTTPError:
            let message =
                switch error.status {
                case .notFound: "no such endpoint: \(request.method) \(request.uri.path)"
                case .contentTooLarge: "the request body is too large"
                case .methodNotAllowed: "\(request.method) is not allowed here"
                default: error.body ?? error.status.reasonPhrase
                }
            self.init(error.status, message)
        default:
            logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            self.init(.internalServerError, "the server could not complete the request")
        }
    }
}
