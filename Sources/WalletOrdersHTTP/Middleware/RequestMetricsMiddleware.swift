import Hummingbird

/// Counts and times every request by its route pattern and final status, gives it an `x-request-id` header with the id
/// Hummingbird put in the request's log metadata, and logs it at debug level. Outermost: it sees the JSON
/// answers `ErrorMiddleware` makes of errors.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext
    let metrics: any HTTPMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        do {
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // Errors become their JSON answer here, so that they too carry the request id.
                response = try error.response(from: request, context: context)
            }
            response.headers[.init("x-request-id")!] = context.id
            finish(context, method: method, status: response.status.code, since: start)
            return response
        } catch {
            finish(context, method: method, status: 500, since: start)
            throw error
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private func finish(_ context: Context, method: String, status: Int, since start: ContinuousClock.Instant) {
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        let duration = ContinuousClock.now - start
        metrics.requestServed(route: route, method: method, status: status, duration: duration)
        context.logger.debug(
            "request",
            metadata: [
                "method": "\(method)", "route": "\(route)", "status": "\(status)",
                "ms": "\(Self.milliseconds(duration))",
            ]
        )
    }
}
