import Foundation
import WalletOrdersModel

/// An order as a merchant sends it to create or replace one: order.json's fields (those the service fills in left
/// out) and its per-order files, already decoded from whatever the request carried them in.
public struct OrderInput: Sendable {
    /// order.json's top-level members.
    public var fields: [String: JSONValue]
    /// The per-order files (images, return labels) by package path; nil on a replacement keeps the order's files.
    public var assets: [String: Data]?

    public init(fields: [String: JSONValue], assets: [String: Data]? = nil) {
        self.fields = fields
        self.assets = assets
    }
}

/// A change to an order: a JSON merge patch (RFC 7396) of order.json's members, and files to add, replace or remove.
public struct OrderPatch: Sendable {
    /// The patch's members: each replaces the member it names, merging objects; null removes it.
    public var changes: [String: JSONValue]
    /// Files added or replaced, by package path.
    public var assets: [String: Data]
    /// Files removed, by package path.
    public var removedAssets: Set<String>

    public init(changes: [String: JSONValue], assets: [String: Data] = [:], removedAssets: Set<String> = []) {
        self.changes = changes
        self.assets = assets
        self.removedAssets = removedAssets
    }
}
