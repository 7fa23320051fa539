import Foundation
import WalletOrdersModel

/// JSON a request sent, read the one way every route reads it: 400 when it is not JSON, and 400 naming where when
/// any of its text holds NUL (`NULText`), before anything of it reaches the service or a store.
enum JSONBody {
    /// `data` parsed; throws `APIError` (400) for text that is not JSON or holds NUL.
    static func parse(_ data: Data) throws -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch let error as JSONValue.ParseError {
            throw APIError(.badRequest, error.description)
        }
        if let path = json.pathOfNUL {
            throw APIError(
                .badRequest,
                "text in the body \(NULText.message)",
                problems: [OrderProblem(path: path, message: NULText.message)]
            )
        }
        return json
    }
}
