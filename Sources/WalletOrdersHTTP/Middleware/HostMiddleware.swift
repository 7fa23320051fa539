import Hummingbird

/// Refuses a request without exactly one `Host` header with 400, as RFC 9112 (section 3.2) asks of a server, and
/// one whose `Host` names a host the policy does not accept with 421.
struct HostMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: HostPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The first Host header became the request's authority; a second one is still among its fields.
        guard let authority = request.head.authority else {
            throw APIError(.badRequest, "the request has no Host header, which HTTP/1.1 requires")
        }
        guard !request.headers.contains(where: { $0.name.canonicalName == "host" }) else {
            throw APIError(.badRequest, "the request has more than one Host header")
        }
        guard policy.accepts(authority) else {
            throw APIError(
                .misdirectedRequest,
                "in development this server answers only to localhost, 127.0.0.1, [::1] and the names it was "
                    + "configured with: a page under another name may be a DNS rebinding attack"
            )
        }
        return try await next(request, context)
    }
}
