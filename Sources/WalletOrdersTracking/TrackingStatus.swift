/// Where a parcel is, in the words carriers and aggregators share: the vocabulary of tracking events, which the
/// service maps onto Wallet's shipping and pickup statuses.
public enum TrackingStatus: String, Sendable, CaseIterable, Codable {
    /// The carrier has the shipment's details (a label was made) but not yet the parcel.
    case infoReceived = "info_received"
    case inTransit = "in_transit"
    case outForDelivery = "out_for_delivery"
    case delivered
    /// Waiting at a carrier's counter or locker for the recipient to collect it.
    case availableForPickup = "available_for_pickup"
    /// Collected by the recipient.
    case pickedUp = "picked_up"
    /// The carrier tried to deliver and could not.
    case failedAttempt = "failed_attempt"
    /// Held up: customs, damage, a wrong address.
    case exception
    case returnedToSender = "returned_to_sender"
    case cancelled

    /// The `status` of a Wallet shipping fulfillment this puts it in.
    public var shippingStatus: String {
        switch self {
        case .infoReceived: "processing"
        case .inTransit, .availableForPickup: "onTheWay"
        case .outForDelivery: "outForDelivery"
        case .delivered, .pickedUp: "delivered"
        case .failedAttempt, .exception, .returnedToSender: "issue"
        case .cancelled: "cancelled"
        }
    }

    /// The `status` of a Wallet pickup fulfillment this puts it in.
    public var pickupStatus: String {
        switch self {
        case .infoReceived, .inTransit, .outForDelivery: "processing"
        case .availableForPickup: "readyForPickup"
        case .delivered, .pickedUp: "pickedUp"
        case .failedAttempt, .exception, .returnedToSender: "issue"
        case .cancelled: "cancelled"
        }
    }

    /// What Wallet shows under the status when the event says nothing itself, for the statuses Wallet's own
    /// vocabulary blurs (a parcel at a carrier's counter is "on the way" to Wallet).
    public var defaultDescription: String? {
        switch self {
        case .availableForPickup: "Ready to collect from the carrier"
        case .failedAttempt: "Delivery attempted"
        case .returnedToSender: "Returned to the sender"
        default: nil
        }
    }

    /// Every status, as the API spells them, for messages.
    public static let vocabulary = allCases.map(\.rawValue).joined(separator: ", ")
}
