import Foundation

/// Why the store refused a write.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An order with this type and identifier already exists.
    case orderExists
    /// No order has this type and identifier.
    case orderNotFound
    /// The order moved on to another version between the read and the commit.
    case versionConflict
    /// A merchant with this slug already exists.
    case merchantExists
    /// A partner with this name already exists.
    case partnerExists
    /// The write would take the merchant past one of its limits.
    case quotaExceeded(MerchantQuota)
    /// The order has as many devices registered as it may.
    case tooManyDevices
    /// The order has as many live download links as it may.
    case tooManyLinks
    /// The merchant has as many webhook endpoints as it may.
    case tooManyWebhooks
    /// The merchant has as many connected shops as it may.
    case tooManyShops
    /// The database cannot be reached now (down, restarting, the connection lost): try again shortly.
    case unavailable(String)
    /// The disk holding the database is full: the write was not stored, and writes succeed again once there is room.
    case diskFull
    /// The database says something the store cannot use.
    case unexpected(String)

    public var description: String {
        switch self {
        case .orderExists: "an order with this type and identifier already exists"
        case .orderNotFound: "no such order"
        case .versionConflict: "the order changed meanwhile"
        case .merchantExists: "a merchant with this slug already exists"
        case .partnerExists: "a partner with this name already exists"
        case .quotaExceeded(let quota): "the write would pass the merchant's \(quota.rawValue)"
        case .tooManyDevices: "the order has as many devices registered as it may"
        case .tooManyLinks: "the order has as many live download links as it may"
        case .tooManyWebhooks: "the merchant has as many webhook endpoints as it may"
        case .tooManyShops: "the merchant has as many connected shops as it may"
        case .unavailable(let detail): detail
        case .diskFull: "the disk holding the database is full"
        case .unexpected(let detail): detail
        }
    }
}
