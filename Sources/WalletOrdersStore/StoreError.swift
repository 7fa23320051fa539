import Foundation

/// Why the store refused a write.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An order with this type and identifier already exists.
    case orderExists
    /// No order has this type and identifier.
    case orderNotFound
    /// The order moved on to another version between the read and the commit.
    case versionConflict
    /// The database says something the store cannot use.
    case unexpected(String)

    public var description: String {
        switch self {
        case .orderExists: "an order with this type and identifier already exists"
        case .orderNotFound: "no such order"
        case .versionConflict: "the order changed meanwhile"
        case .unexpected(let detail): detail
        }
    }
}
