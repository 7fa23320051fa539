import HTTPTypes
import Hummingbird

/// Puts the client's address in the request context, from the trusted-proxy header when one is configured.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let trustedHeader: HTTPField.Name?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.clientAddress = ClientAddress.resolve(
            headers: request.headers,
            peer: context.remoteAddress,
            trustedHeader: trustedHeader
        )
        return try await next(request, context)
    }
}
