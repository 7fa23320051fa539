import Foundation
import WalletOrdersModel

/// An order a simulated device holds: the newest version that passed Wallet's checks, and what the device needs
/// to keep it current.
public struct DeviceOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    /// Where the device asks about this order; nil for a package with no web service.
    public internal(set) var webServiceURL: String?
    /// The signed package as it was fetched.
    public internal(set) var package: Data
    /// Its verified order.json.
    public internal(set) var order: OrderDocument
    /// What the package's check found worth a warning (objects older devices do not show …).
    public internal(set) var warnings: [String]
    /// The `Last-Modified` and `ETag` the package came with, sent back as `If-Modified-Since` and `If-None-Match`.
    public internal(set) var lastModified: String?
    public internal(set) var etag: String?
    /// Whether the web service answered the registration with 200 or 201 (and it was not removed since).
    public internal(set) var isRegistered: Bool
    /// How many versions of the order the device has accepted.
    public internal(set) var versions: Int
    /// The secret for the web service; kept out of descriptions and transcripts.
    var authenticationToken: String?

    /// The order's `updatedAt`.
    public var updatedAt: Date? { order.updatedAt }
}

/// An order's type and identifier.
struct OrderKey: Hashable, Sendable {
    let type: String
    let id: String
}

/// A web service and an order type: the device keeps one `ordersModifiedSince` tag for each.
struct ServiceKey: Hashable, Sendable {
    let webServiceURL: String
    let type: String
}
