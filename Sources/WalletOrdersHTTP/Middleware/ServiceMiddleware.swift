import Foundation
import HTTPTypes
import Hummingbird
import WalletOrdersModel

/// Every request's one pass before its route, the same for every route. One middleware rather than one per concern:
/// each layer costs every request a frame, a closure and a copy of the context, and six of them, with the connection
/// handlers, doubled the server's time for a warm order fetch (BENCHMARKS.md). In order:
/// 1. the client's address, from the trusted-proxy header when one is configured (`ClientAddress`);
/// 2. exactly one `Host` header, naming a host the policy accepts (`HostPolicy`);
/// 3. no NUL in the path or the query parameters (`NULText`); JSON bodies are held to it where they are read;
/// 4. `Expect: 100-continue` answered once the handler first reads the body (`ContinueOnce`);
/// 5. every error a handler throws turned into a JSON answer (`APIError(answering:)`): never a bare 500;
/// 6. the request counted and timed by route pattern, method and final status, given an `x-request-id` header with
///    the id Hummingbird put in its log metadata, and logged at debug level.
struct ServiceMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    /// The trusted-proxy header, when the service is behind one.
    let trustedHeader: HTTPField.Name?
    let hosts: HostPolicy
    let metrics: any HTTPMetrics

    static let requestID = HTTPField.Name("x-request-id")!
    static let host = HTTPField.Name("host")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var request = request
        var context = context
        if let trustedHeader {
            context.clientAddress = ClientAddress.resolve(headers: request.headers, peer: context.remoteAddress, trustedHeader: trustedHeader)
        }
        var response: Response
        do {
            do {
                try Self.checkHost(request, hosts)
                try Self.checkNUL(request)
                if ContinueOnce.isExpected(request.headers) { ContinueOnce.answer(&request, &context) }
                response = try await next(request, context)
            } catch {
                response = try APIError(answering: error, to: request, logger: context.logger).response(from: request, context: context)
            }
        } catch {
            finish(request, context, status: 500, since: start)
            throw error
        }
        response.headers[Self.requestID] = context.id
        finish(request, context, status: response.status.code, since: start)
        return response
    }

    /// Refuses a request without exactly one `Host` header with 400, as RFC 9112 (section 3.2) asks of a server, and
    /// one whose `Host` names a host the policy does not accept with 421.
    static func checkHost(_ request: Request, _ hosts: HostPolicy) throws {
        // The first Host header became the request's authority; a second one is still among its fields.
        guard let authority = request.head.authority else {
            throw APIError(.badRequest, "the request has no Host header, which HTTP/1.1 requires")
        }
        guard !request.headers.contains(where: { $0.name == Self.host }) else {
            throw APIError(.badRequest, "the request has more than one Host header")
        }
        guard hosts.accepts(authority) else {
            throw APIError(
                .misdirectedRequest,
                "in development this server answers only to localhost, 127.0.0.1, [::1] and the names it was "
                    + "configured with: a page under another name may be a DNS rebinding attack"
            )
        }
    }

    /// Refuses (400) a request whose path or query parameters, percent-decoded, hold NUL (`NULText`): no handler, and
    /// no store, ever sees one.
    static func checkNUL(_ request: Request) throws {
        // A NUL byte cannot be in a request line, only `%00`: requests without one (all but a few) pass at once.
        let path = request.uri.path
        if mayHoldNUL(path), NULText.isIn(path.removingPercentEncoding ?? "") {
            throw APIError(.badRequest, "the path \(NULText.message)")
        }
        guard let query = request.uri.query, mayHoldNUL(query) else { return }
        for (name, value) in request.uri.queryParameters
        where NULText.isIn(value) || NULText.isIn(String(name).removingPercentEncoding ?? "") {
            let shown = String(name).replacingOccurrences(of: "%00", with: "\\u0000")
            throw APIError(
                .badRequest,
                "the query parameter \(shown) \(NULText.message)",
                problems: [OrderProblem(path: shown, message: NULText.message)]
            )
        }
    }

    /// Whether `text` holds `%00`, the only way a NUL comes in a request line. Read as bytes: Foundation's
    /// substring search showed in the fetch's profile.
    static func mayHoldNUL(_ text: String) -> Bool {
        var percent = 0
        for byte in text.utf8 {
            switch (percent, byte) {
            case (_, UInt8(ascii: "%")): percent = 1
            case (1, UInt8(ascii: "0")): percent = 2
            case (2, UInt8(ascii: "0")): return true
            default: percent = 0
            }
        }
        return false
    }

    /// The request's route pattern (`unmatched` for none), method and final status, counted and timed.
    private func finish(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        let method = Self.methodLabel(request.method)
        let duration = ContinuousClock.now - start
        metrics.requestServed(route: route, method: method, status: status, duration: duration)
        context.logger.debug(
            "request",
            metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(status)",
                "ms": "\(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)",
            ]
        )
    }

    /// The method as metrics label it: any other than the standard ones is `other`, since a client may send any
    /// token as a method, and each label value is a series kept for good.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        default: "other"
        }
    }
}
