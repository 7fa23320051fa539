import Foundation
import Hummingbird
import WalletOrdersModel

extension Parameters {
    /// The path parameter `name`, percent-decoded and checked against the identifier rules; 400 when it breaks them.
    public func identifier(_ name: String) throws -> String {
        let raw = get(name) ?? ""
        // Bytes, not Foundation's `contains`, which showed in the order fetch's profile.
        let value = raw.utf8.contains(UInt8(ascii: "%")) ? (raw.removingPercentEncoding ?? raw) : raw
        if let problem = Identifier.problem(with: value) {
            throw APIError(.badRequest, "\(name) \(problem)")
        }
        return value
    }
}
