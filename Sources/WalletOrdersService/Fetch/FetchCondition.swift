import Foundation
import WalletOrdersStore

/// What a device says it holds already, so that an unchanged order is answered "not modified" from its head alone,
/// before any package work.
public enum FetchCondition: Sendable, Equatable {
    /// Nothing: the package is wanted.
    case none
    /// `If-None-Match`: the change tags of the versions the device holds, or any version at all (`*`). It wins over
    /// `If-Modified-Since` when both are sent (RFC 9110, section 13.2.2).
    case noneMatch(changeTags: Set<Int64>, any: Bool)
    /// `If-Modified-Since`: the time of the version the device holds.
    case modifiedSince(Date)

    /// Whether the order at `head` is the version the device holds, so no package is needed.
    public func isNotModified(_ head: OrderHead) -> Bool {
        switch self {
        case .none: false
        case .noneMatch(let tags, let any): any || tags.contains(head.changeTag)
        case .modifiedSince(let date): head.updatedAt <= date
        }
    }
}

/// What a device's fetch gets: its order's head and, unless the device holds that version already, the package.
public enum FetchResult: Sendable {
    /// The device holds the current version.
    case notModified(OrderHead)
    /// The device needs the current version: here is its package.
    case modified(FetchedPackage)

    /// The head of the order's current version.
    public var head: OrderHead {
        switch self {
        case .notModified(let head): head
        case .modified(let fetched): fetched.head
        }
    }

    /// The package, unless the device holds the current version.
    public var fetched: FetchedPackage? {
        if case .modified(let fetched) = self { fetched } else { nil }
    }
}
