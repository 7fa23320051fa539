import Foundation
import Hummingbird
import WalletOrdersModel

extension Request {
    /// The body parsed as JSON, at most `limit` bytes; 413 above it, 400 when it is not JSON or its text holds NUL
    /// (`JSONBody`).
    func json(limit: Int) async throws -> JSONValue {
        try JSONBody.parse(Data(buffer: try await collectedBody(limit: limit)))
    }
}
