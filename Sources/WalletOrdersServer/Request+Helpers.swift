import Foundation
import Hummingbird
import WalletOrdersModel

extension Request {
    /// The body parsed as JSON, at most `limit` bytes; 413 above it, 400 when it is not JSON.
    func json(limit: Int) async throws -> JSONValue {
        let buffer = try await body.collect(upTo: limit)
        do {
            return try JSONValue.parse(Data(buffer: buffer))
        } catch let error as JSONValue.ParseError {
            throw APIError(.badRequest, error.description)
        }
    }

    /// The credential after `scheme` in the Authorization header (`AppleOrder …`, `Bearer …`).
    func credential(scheme: String) -> String? {
        guard let header = headers[.authorization] else { return nil }
        let prefix = scheme + " "
        guard header.count > prefix.count, header.lowercased().hasPrefix(prefix.lowercased()) else { return nil }
        return String(header.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
    }
}

extension Parameters {
    /// The path parameter `name`, percent-decoded and checked against the identifier rules; 400 when it breaks them.
    func identifier(_ name: String) throws -> String {
        let raw = get(name) ?? ""
        let value = raw.contains("%") ? (raw.removingPercentEncoding ?? raw) : raw
        if let problem = Identifier.problem(with: value) {
            throw APIError(.badRequest, "\(name) \(problem)")
        }
        return value
    }
}

/// JSON responses with sorted keys and the right content type.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status = .ok, _ body: JSONValue, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body.serialized())))
    }
}

extension JSONValue {
    /// A date as RFC 3339 text.
    static func date(_ date: Date) -> JSONValue { .string(RFC3339.format(date)) }
}
