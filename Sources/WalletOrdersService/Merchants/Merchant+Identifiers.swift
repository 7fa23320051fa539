import WalletOrdersStore

/// Whose order an identifier names. Every merchant but the default one has its identifiers namespaced by its slug,
/// as Wallet sees them: merchant `acme`'s order `1001` is `acme:1001`, so that two merchants can both have an order
/// `1001` under one order type. The default merchant's identifiers are what it gives (a single-shop deployment's
/// orders keep theirs); the store refuses a slug that its identifiers already start with.
extension Merchant {
    /// Wallet's identifier of the merchant's order `id`, as the merchant names it: its own identifier (`1001`) or
    /// Wallet's (`acme:1001`).
    public func walletIdentifier(_ id: String) -> String {
        isDefault || id.hasPrefix(namespace) ? id : namespace + id
    }

    /// The merchant's own identifier of an order Wallet knows as `id`.
    public func ownIdentifier(_ id: String) -> String {
        !isDefault && id.hasPrefix(namespace) ? String(id.dropFirst(namespace.count)) : id
    }

    /// What every identifier of the merchant's orders starts with: `slug:` (nothing for the default merchant).
    public var namespace: String { isDefault ? "" : slug + ":" }

    /// A merchant record for the default merchant as a single-shop deployment has it, for callers that act for it
    /// without reading it (tests, tools).
    public static let singleShop = Merchant(
        id: defaultID,
        slug: defaultSlug,
        displayName: "Default",
        createdAt: .distantPast,
        updatedAt: .distantPast
    )
}
