import Foundation
import WalletOrdersModel

/// What a merchant can hear about through a webhook.
public enum WebhookEvent: String, Sendable, Codable, CaseIterable {
    /// The first device registered for one of the merchant's orders: the order is in someone's Wallet.
    case orderAddedToWallet = "order.added_to_wallet"
    /// The last device registered for an order unregistered: no Wallet holds it any more.
    case orderRemovedFromWallet = "order.removed_from_wallet"
    /// A new version of an order was committed.
    case orderUpdated = "order.updated"
    /// A push to a device failed for good (after its retries, or at once when APNs refused the token).
    case pushFailed = "push.failed"
    /// A download link served the order's package.
    case linkDownloaded = "link.downloaded"
    /// An order was created (its first version): what Apple Pay hands Wallet, and the link for its emails, can go out.
    case orderCreated = "order.created"
    /// Nothing was heard of a parcel in transit for as long as the merchant allows: the service moved its
    /// fulfillment to `issue` (with `order.updated` for the version that made).
    case fulfillmentStalled = "fulfillment.stalled"

    /// The event's bit in an endpoint's event mask.
    public var bit: Int64 {
        switch self {
        case .orderAddedToWallet: 1
        case .orderRemovedFromWallet: 2
        case .orderUpdated: 4
        case .pushFailed: 8
        case .linkDownloaded: 16
        case .orderCreated: 32
        case .fulfillmentStalled: 64
        }
    }

    /// The mask of `events`.
    public static func mask(_ events: some Sequence<WebhookEvent>) -> Int64 {
        events.reduce(0) { $0 | $1.bit }
    }

    /// The events of `mask`, in declaration order.
    public static func events(in mask: Int64) -> [WebhookEvent] {
        allCases.filter { mask & $0.bit != 0 }
    }
}

/// A URL of a merchant's that hears about events, as stored. Its signing secret is kept as it is (signing needs
/// it), never shown again after it was made.
public struct WebhookEndpoint: Sendable, Equatable {
    /// The endpoint's public id (`whk_…`).
    public let id: String
    public let merchantID: Int64
    public var url: String
    public var events: [WebhookEvent]
    /// The signing secret, `whsec_` and base64.
    public var secret: String
    /// The secret before the last rotation, still signing beside the new one until `previousSecretUntil`.
    public var previousSecret: String?
    public var previousSecretUntil: Date?
    public let createdAt: Date
    public var updatedAt: Date
    /// When deliveries stopped for good and why; nil while the endpoint receives events.
    public var disabledAt: Date?
    public var disabledReason: String?

    public init(
        id: String,
        merchantID: Int64,
        url: String,
        events: [WebhookEvent],
        secret: String,
        previousSecret: String? = nil,
        previousSecretUntil: Date? = nil,
        createdAt: Date,
        updatedAt: Date,
        disabledAt: Date? = nil,
        disabledReason: String? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.url = url
        self.events = events
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretUntil = previousSecretUntil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
    }
}

/// What to change of an endpoint: the fields that are not nil.
public struct WebhookEndpointChange: Sendable {
    public var url: String?
    public var events: [WebhookEvent]?
    /// A new secret; the current one keeps signing beside it until `previousSecretUntil`.
    public var secret: String?
    public var previousSecretUntil: Date?
    /// True enables a disabled endpoint again (its pending deliveries go out); false disables it.
    public var enabled: Bool?

    public init(
        url: String? = nil,
        events: [WebhookEvent]? = nil,
        secret: String? = nil,
        previousSecretUntil: Date? = nil,
        enabled: Bool? = nil
    ) {
        self.url = url
        self.events = events
        self.secret = secret
        self.previousSecretUntil = previousSecretUntil
        self.enabled = enabled
    }
}

/// What a change does to an endpoint's deliveries, besides the endpoint itself.
public enum WebhookEndpointTransition: Sendable, Equatable {
    /// It was disabled and is enabled now: its failed deliveries go back in the queue.
    case enabled
    /// It was enabled and is disabled now: its pending deliveries fail (enabling it again queues them again).
    case disabled
}

extension WebhookEndpoint {
    /// The endpoint as `change` leaves it at `now`, and what that does to its deliveries (nil: nothing). A new
    /// secret keeps the current one signing beside it until the change's `previousSecretUntil`. Both engines store
    /// what this answers.
    public func changed(by change: WebhookEndpointChange, now: Date) -> (WebhookEndpoint, WebhookEndpointTransition?) {
        var endpoint = self
        if let url = change.url { endpoint.url = url }
        if let events = change.events { endpoint.events = events }
        if let secret = change.secret {
            endpoint.previousSecret = endpoint.secret
            endpoint.previousSecretUntil = change.previousSecretUntil
            endpoint.secret = secret
        }
        endpoint.updatedAt = now
        switch change.enabled {
        case true? where disabledAt != nil:
            endpoint.disabledAt = nil
            endpoint.disabledReason = nil
            return (endpoint, .enabled)
        case false? where disabledAt == nil:
            endpoint.disabledAt = now
            endpoint.disabledReason = "disabled by the merchant"
            return (endpoint, .disabled)
        default:
            return (endpoint, nil)
        }
    }
}

/// Where a delivery stands.
public enum WebhookDeliveryStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting to be sent, at `nextAttemptAt` or later.
    case pending
    /// Claimed by an instance that is sending it now.
    case sending
    /// The endpoint answered 2xx.
    case delivered
    /// Given up after the retries; the endpoint was disabled.
    case failed
}

/// One event on its way to one endpoint, or gone. Its message id is the `webhook-id` every attempt carries.
public struct WebhookDelivery: Sendable, Equatable {
    public let id: Int64
    public let messageID: String
    public let endpointID: String
    public let event: WebhookEvent
    public let orderTypeIdentifier: String
    /// Wallet's identifier of the order.
    public let orderIdentifier: String
    /// What the event says beyond the order, as a JSON object (a version, APNs' reason, a link's id).
    public let detail: String
    public let occurredAt: Date
    public let status: WebhookDeliveryStatus
    public let attempts: Int
    public let nextAttemptAt: Date
    /// The status code of the last answer, nil when there was none (no connection, a timeout, a refused address).
    public let lastStatusCode: Int?
    public let lastError: String?
    public let updatedAt: Date

    public init(
        id: Int64,
        messageID: String,
        endpointID: String,
        event: WebhookEvent,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        detail: String,
        occurredAt: Date,
        status: WebhookDeliveryStatus,
        attempts: Int,
        nextAttemptAt: Date,
        lastStatusCode: Int?,
        lastError: String?,
        updatedAt: Date
    ) {
        self.id = id
        self.messageID = messageID
        self.endpointID = endpointID
        self.event = event
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.detail = detail
        self.occurredAt = occurredAt
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.updatedAt = updatedAt
    }
}

/// A delivery claimed for sending, with what sending needs: where, the secrets, whose order.
public struct WebhookJob: Sendable, Equatable {
    public let delivery: WebhookDelivery
    public let merchantID: Int64
    public let merchantSlug: String
    public let url: String
    public let secret: String
    /// The secret before a rotation, while it still signs.
    public let previousSecret: String?

    public init(
        delivery: WebhookDelivery,
        merchantID: Int64,
        merchantSlug: String,
        url: String,
        secret: String,
        previousSecret: String?
    ) {
        self.delivery = delivery
        self.merchantID = merchantID
        self.merchantSlug = merchantSlug
        self.url = url
        self.secret = secret
        self.previousSecret = previousSecret
    }
}

/// What became of one attempt.
public enum WebhookOutcome: Sendable, Equatable {
    /// The endpoint answered 2xx.
    case delivered(statusCode: Int)
    /// Try again after that many seconds by the store's clock.
    case retry(after: TimeInterval, statusCode: Int?, error: String)
    /// Retries are spent: the delivery fails and the endpoint is disabled, saying `reason`.
    case failed(statusCode: Int?, error: String, reason: String)
}
