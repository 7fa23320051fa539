/// One thing wrong with an order: where it is and what is wrong, e.g.
/// `fulfillments[0].status`: `"lost" is not one of open, processing, …`.
public struct OrderProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the problem is, as a path into order.json (`merchant.url`, `lineItems[2].quantity`).
    public let path: String
    /// What is wrong, in a sentence fragment a merchant can act on.
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
