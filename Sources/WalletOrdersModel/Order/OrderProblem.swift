/// One thing wrong with an order, or one warning about it: where it is and what is wrong, e.g.
/// `fulfillments[0].status`: `"lost" is not one of open, processing, …`.
public struct OrderProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the problem is: a path into order.json (`merchant.url`, `lineItems[2].quantity`), or, for a problem
    /// with the package's files, the file's path (`fr.lproj/order.strings`).
    public let path: String
    /// What is wrong, in a sentence fragment a merchant can act on.
    public let message: String

    /// A problem at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or the message alone for the whole order.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
