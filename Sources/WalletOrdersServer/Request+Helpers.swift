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
        // On UTF-8 bytes: Foundation's lowercasing and trimming showed in the order fetch's profile.
        guard let header = headers[.authorization]?.utf8 else { return nil }
        let prefix = scheme.utf8
        guard header.count > prefix.count + 1,
              zip(header, prefix).allSatisfy({ Self.asciiLowercased($0) == Self.asciiLowercased($1) }),
              header[header.index(header.startIndex, offsetBy: prefix.count)] == UInt8(ascii: " ")
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let rest = header.dropFirst(prefix.count + 1).drop(while: isBlank)
        var end = rest.endIndex
        while end > rest.startIndex, isBlank(rest[rest.index(before: end)]) { end = rest.index(before: end) }
        return String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}

extension Parameters {
    /// The path parameter `name`, percent-decoded and checked against the identifier rules; 400 when it breaks them.
    func identifier(_ name: String) throws -> String {
        let raw = get(name) ?? ""
        // Bytes, not Foundation's `contains`, which showed in the order fetch's profile.
        let value = raw.utf8.contains(UInt8(ascii: "%")) ? (raw.removingPercentEncoding ?? raw) : raw
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
