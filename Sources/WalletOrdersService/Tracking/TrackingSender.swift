import WalletOrdersStore

/// Who sent tracking events: a merchant, about its own orders, or a logistics partner, about its merchants'.
public enum TrackingSender: Sendable {
    case merchant(Merchant)
    case partner(Partner)

    /// How the store keeps the sender of an event: event ids are unique per sender.
    var source: String {
        switch self {
        case .merchant(let merchant): "merchant:\(merchant.id)"
        case .partner(let partner): "partner:\(partner.id)"
        }
    }

    /// The merchants whose orders its events may move.
    var merchantIDs: [Int64] {
        switch self {
        case .merchant(let merchant): [merchant.id]
        case .partner(let partner): partner.merchantIDs
        }
    }

    /// Who the versions its events make are by.
    var author: VersionAuthor {
        switch self {
        case .merchant(let merchant): .merchant(merchant.slug)
        case .partner(let partner): .partner(partner.name)
        }
    }

    /// How it names an order of `merchant` that Wallet knows as `walletID`: a merchant by its own identifier, as
    /// everywhere in its API; a partner by Wallet's, which its PATCH takes.
    func identifier(_ walletID: String, of merchant: Merchant) -> String {
        switch self {
        case .merchant: merchant.ownIdentifier(walletID)
        case .partner: walletID
        }
    }
}
