/// Why a signed webhook's body gave no update: what the caller logs, answering the platform so that it does not send
/// the same body again (a body that cannot be read now never can be).
public enum ShopPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not JSON, is too large, or lacks what every payload of its kind has (an order's id).
    case unreadable(String)
    /// The platform sent a topic this service does not map (`products/update`, `order.restored`).
    case unsupportedTopic(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "the payload cannot be read: \(reason)"
        case .unsupportedTopic(let topic): "the topic \(topic.prefix(64)) is not one an order is made from"
        }
    }
}
