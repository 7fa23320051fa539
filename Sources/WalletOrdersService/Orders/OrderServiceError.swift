import WalletOrdersModel
import WalletOrdersStore

/// Why the service refused a request, in its own terms; the HTTP layer turns each into a status in one place.
public enum OrderServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The order (or its assets) breaks the rules; every problem is listed with its path.
    case invalidOrder(String, problems: [OrderProblem])
    /// The credential is missing or wrong, or the order does not exist: devices cannot tell which.
    case unauthorized
    /// No order has this type and identifier.
    case orderNotFound
    /// An order with this type and identifier already exists.
    case orderExists(type: String, id: String)
    /// Other writes to the order kept winning the race; the merchant may try again.
    case writeConflict
    /// The signed package would be too large for Wallet.
    case packageTooLarge(bytes: Int, limit: Int)
    /// The package could not be built or signed for a reason that is not the order's fault.
    case packagingFailed(String)
    /// The write would take the merchant past one of its limits.
    case limitReached(MerchantQuota, merchant: Merchant)
    /// The order has `limit` devices registered; a new one is refused until one leaves.
    case tooManyDevices(limit: Int)
    /// No link serves this reference (none has it, or it expired, was revoked or is used up); or the merchant has
    /// no such link.
    case linkNotFound
    /// The order has `limit` live links; a new one is refused until one expires or is revoked.
    case tooManyLinks(limit: Int)
    /// The merchant has no such webhook endpoint, or no such delivery of it.
    case webhookNotFound
    /// The merchant has `limit` webhook endpoints; a new one is refused until one is deleted.
    case tooManyWebhooks(limit: Int)
    /// The endpoint is disabled: deliveries to it wait until it is enabled again.
    case webhookDisabled
    /// A partner key tried to change what only the merchant may: every field, with its path.
    case notPartnersToChange([OrderProblem])
    /// The merchant (its slug) is suspended: its keys, and its partners' changes to its orders, are refused until
    /// an operator resumes it.
    case merchantSuspended(String)

    public var description: String {
        switch self {
        case .invalidOrder(let message, let problems):
            ([message] + problems.map { "  - \($0)" }).joined(separator: "\n")
        case .unauthorized: "missing or wrong credentials"
        case .orderNotFound: "no such order"
        case .orderExists(let type, let id): "an order \(id) of type \(type) already exists"
        case .writeConflict: "the order kept changing while this update was being made; send it again"
        case .packageTooLarge(let bytes, let limit):
            "the package is \(bytes) bytes; Wallet accepts packages below \(limit) bytes (5 MB): use smaller images"
        case .packagingFailed(let message): "the package could not be built: \(message)"
        case .limitReached(.maxOrders, let merchant):
            "merchant \(merchant.slug) stores \(merchant.limits.maxOrders.map(String.init) ?? "its most") orders already, "
                + "the most its limit (maxOrders) allows"
        case .limitReached(.maxAssetBytes, let merchant):
            "this write would take merchant \(merchant.slug) past its limit of "
                + "\(merchant.limits.maxAssetBytes.map(String.init) ?? "some") bytes of order files and version history "
                + "(maxAssetBytes)"
        case .linkNotFound: "no such link"
        case .tooManyLinks(let limit):
            "this order has \(limit) links that are neither expired nor revoked, the most it may have; revoke one"
        case .webhookNotFound: "no such webhook endpoint or delivery"
        case .tooManyWebhooks(let limit):
            "this merchant has \(limit) webhook endpoints, the most it may have; delete one"
        case .notPartnersToChange(let problems):
            ([
                "a partner key may change only the progress of fulfillments (status, carrier, tracking, delivery and "
                    + "pickup times, notes); these are the merchant's"
            ] + problems.map { "  - \($0)" }).joined(separator: "\n")
        case .merchantSuspended(let slug):
            "merchant \(slug) is suspended: its keys, and its partners' changes to its orders, are refused until an "
                + "operator resumes it (its orders keep serving devices)"
        case .webhookDisabled: "the endpoint is disabled; enable it (PATCH with {\"enabled\": true}) to deliver to it again"
        case .tooManyDevices(let limit):
            "this order has \(limit) devices registered, the most one order may have (maxDevicesPerOrder); "
                + "a device that unregisters makes room"
        }
    }

    /// An invalid order with these problems.
    static func invalid(_ problems: [OrderProblem]) -> OrderServiceError {
        .invalidOrder("the order is not valid", problems: problems)
    }
}
