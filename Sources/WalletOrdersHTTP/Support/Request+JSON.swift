import Foundation
import Hummingbird
import WalletOrdersModel

extension Request {
    /// The body parsed as JSON, at most `limit` bytes; 413 above it, 400 when it is not JSON.
    func json(limit: Int) async throws -> JSONValue {
        let buffer = try await collectedBody(limit: limit)
        do {
            return try JSONValue.parse(Data(buffer: buffer))
        } catch let error as JSONValue.ParseError {
            throw APIError(.badRequest, error.description)
        }
    }
}
