import Foundation
import WalletOrdersModel

/// A webhook event a change causes, as the service decided it: which event, and what its `data` holds beyond the
/// order. Every payload is built here, by the functions below; an engine stores a notice as it is, once for each
/// enabled endpoint of the order's merchant that listens for its event.
public struct WebhookNotice: Sendable, Equatable {
    public let event: WebhookEvent
    /// The event's `data` beyond the order, as the JSON object a delivery stores.
    public let detail: String

    private init(_ event: WebhookEvent, _ fields: [String: JSONValue] = [:]) {
        self.event = event
        // The service's own writer, keys sorted: Foundation's JSONSerialization showed in every update's profile.
        detail = String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self)
    }

    /// The order's first device registered: the order is in someone's Wallet.
    public static let addedToWallet = WebhookNotice(.orderAddedToWallet)
    /// The order's last device unregistered: no Wallet holds it any more.
    public static let removedFromWallet = WebhookNotice(.orderRemovedFromWallet)

    /// The order was created, with `status`; `downloadURL` is the order's own link, for the shop's emails.
    public static func orderCreated(status: Order.Status, downloadURL: String? = nil) -> WebhookNotice {
        WebhookNotice(.orderCreated, withLink(["version": .int(1), "status": .string(status.rawValue)], downloadURL))
    }

    /// Version `version` of the order was committed, with `status`; `downloadURL` as for `orderCreated`.
    public static func orderUpdated(version: Int, status: Order.Status, downloadURL: String? = nil) -> WebhookNotice {
        WebhookNotice(.orderUpdated, withLink(["version": .int(version), "status": .string(status.rawValue)], downloadURL))
    }

    private static func withLink(_ fields: [String: JSONValue], _ downloadURL: String?) -> [String: JSONValue] {
        var fields = fields
        if let downloadURL { fields["downloadURL"] = .string(downloadURL) }
        return fields
    }

    /// The order's fulfillment `fulfillmentIdentifier`, following `trackingNumber` with `carrier`, was last heard of
    /// at `heardAt` and was found stalled: version `version` moved it to `issue`.
    public static func fulfillmentStalled(
        version: Int,
        fulfillmentIdentifier: String,
        trackingNumber: String,
        carrier: String?,
        heardAt: Date
    ) -> WebhookNotice {
        var fields: [String: JSONValue] = [
            "version": .int(version), "fulfillmentIdentifier": .string(fulfillmentIdentifier),
            "trackingNumber": .string(trackingNumber), "lastHeardAt": .string(RFC3339.format(heardAt)),
        ]
        if let carrier { fields["carrier"] = .string(carrier) }
        return WebhookNotice(.fulfillmentStalled, fields)
    }

    /// A push to one of the order's devices failed for good after `attempts` attempts, for `reason`.
    public static func pushFailed(attempts: Int, reason: String) -> WebhookNotice {
        WebhookNotice(.pushFailed, ["attempts": .int(attempts), "reason": .string(reason)])
    }

    /// The link `linkID` served the order's package, its `downloads`th download.
    public static func linkDownloaded(linkID: String, downloads: Int) -> WebhookNotice {
        WebhookNotice(.linkDownloaded, ["linkId": .string(linkID), "downloads": .int(downloads)])
    }
}

/// What committing a version causes beyond itself, as the service decided it: the engines store it in the same
/// transaction, so that what was committed is always told.
public struct WriteEffects: Sendable, Equatable {
    /// Whether every device registered for the order is owed a push (one pending push per token covers any number
    /// of versions).
    public var pushRegisteredDevices: Bool
    /// Webhook events for the order's merchant.
    public var webhooks: [WebhookNotice]

    public init(pushRegisteredDevices: Bool = false, webhooks: [WebhookNotice] = []) {
        self.pushRegisteredDevices = pushRegisteredDevices
        self.webhooks = webhooks
    }

    /// Nothing beyond the write itself.
    public static let none = WriteEffects()
}
