import WalletOrdersModel

/// One line of an import as the edge read it: the order it holds, as creating one takes it, or what keeps it from
/// holding one (it is not JSON, or too long).
public struct ImportLine: Sendable {
    /// Where the line is in what was sent, from 1; blank lines count.
    public let number: Int
    public let content: Content

    public enum Content: Sendable {
        /// An order, as `OrderService.create` takes it.
        case order(OrderInput)
        /// A line that holds no order; `orderIdentifier` is what it names, when that could be read.
        case unreadable(orderIdentifier: String?, problems: [OrderProblem])
    }

    public init(number: Int, content: Content) {
        self.number = number
        self.content = content
    }
}
