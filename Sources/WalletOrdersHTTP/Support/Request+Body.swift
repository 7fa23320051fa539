import Hummingbird

extension Request {
    /// The body, at most `limit` bytes: 413 above it, and at once, the body unread, when `Content-Length` says so
    /// (a client waiting for `100 Continue` then never sends it).
    func collectedBody(limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw APIError(.contentTooLarge, "the request body is too large")
        }
        return try await body.collect(upTo: limit)
    }
}
