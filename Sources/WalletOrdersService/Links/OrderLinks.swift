import Foundation
import WalletOrdersStore

/// What a merchant asks of a new download link. By default a link is for the page where a signed-in customer
/// presses "Track with Apple Wallet": it lives `OrderLinks.defaultLifetime` and its first download uses it up. A
/// link for an email may live longer and serve many downloads, giving up Apple's third rule (a user who learns
/// another user's URL cannot download that package) for as long as it lives.
public struct LinkRequest: Sendable, Equatable {
    /// Seconds until the link expires; nil for the default.
    public var expiresIn: Int?
    /// Whether downloads after the first are served.
    public var reusable: Bool

    public init(expiresIn: Int? = nil, reusable: Bool = false) {
        self.expiresIn = expiresIn
        self.reusable = reusable
    }
}

/// A link just made. Its URL holds the reference, shown this once: the store keeps only the reference's SHA-256.
public struct CreatedLink: Sendable, Equatable {
    public let id: String
    public let url: String
    public let expiresAt: Date
    public let reusable: Bool
}

/// An order's current package, downloaded through a link.
public struct LinkDownload: Sendable {
    public let package: FetchedPackage
    /// The order's identifier as its merchant knows it, for the file's name.
    public let ownIdentifier: String
    /// The stored link's use; nil for an order's own link (`OwnLink`), which is stored nowhere.
    public let use: OrderLinkUse?
}

/// The rules of download links.
public enum OrderLinks {
    /// Where links live under the service's URL: `{webServiceURL}/links/{reference}`.
    public static let path = "links"
    /// A button's link: long enough for a customer to press it after the page loads.
    public static let defaultLifetime = 600
    /// The longest any link lives: an email's, for a month.
    public static let maxLifetime = 30 * 86_400
    /// The shortest a merchant may ask for.
    public static let minLifetime = 60
    /// How long after a one-time link's first download the same client may download it again (a retry).
    public static let grace: TimeInterval = 30
    /// Links of one order that are neither expired nor revoked, at most.
    public static let maxLivePerOrder = 100
    /// A reference is 64 hex digits (256 random bits); anything much longer is no reference.
    static let maxReferenceLength = 128

    /// A new link's public id and its reference.
    static func make() -> (id: String, reference: String) {
        ("lnk_" + Random.hex(bytes: 8), Random.token())
    }

    /// What the store keeps of a reference.
    static func hash(_ reference: String) -> Data {
        MerchantAPIKey.hash(reference)
    }
}
