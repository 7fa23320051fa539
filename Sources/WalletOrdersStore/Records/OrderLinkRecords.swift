import Foundation

/// A download link of an order, as stored: never its reference, only the reference's SHA-256.
public struct OrderLink: Sendable, Equatable {
    /// The link's public id (`lnk_…`), by which its merchant revokes it.
    public let id: String
    /// SHA-256 of the reference the link's URL carries.
    public let hash: Data
    public let merchantID: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    /// Whether downloads after the first are served (an email's link); otherwise the first download uses it up.
    public let reusable: Bool
    public let createdAt: Date
    public let expiresAt: Date

    public init(
        id: String,
        hash: Data,
        merchantID: Int64,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        reusable: Bool,
        createdAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.hash = hash
        self.merchantID = merchantID
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.reusable = reusable
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A download a link allowed: whose order it is for, and whether it was the link's first.
public struct OrderLinkUse: Sendable, Equatable {
    public let linkID: String
    public let merchantID: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    /// How many downloads the link has served, this one included.
    public let downloads: Int

    public init(linkID: String, merchantID: Int64, orderTypeIdentifier: String, orderIdentifier: String, downloads: Int) {
        self.linkID = linkID
        self.merchantID = merchantID
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.downloads = downloads
    }
}
