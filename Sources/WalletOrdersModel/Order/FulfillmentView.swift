import Foundation

/// One fulfillment of order.json as the code that changes it reads it: typed fields over the JSON object, which keeps
/// every member the view does not name, so that a fulfillment read and written back loses nothing. The names of the
/// fields that tracking, partners and shops change are spelled here, once.
public struct FulfillmentView: Sendable, Equatable {
    /// The object as it stands, every member kept.
    public private(set) var fields: [String: JSONValue]

    public init(_ fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// A shipping fulfillment is anything that is not a pickup, as Wallet reads `fulfillmentType`.
    public var isPickup: Bool { fields["fulfillmentType"]?.stringValue == "pickup" }

    /// Whether the parcel is with its carrier and not delivered yet: a shipping fulfillment `shipped`, `onTheWay` or
    /// `outForDelivery`. Only such a parcel can stall (`open` and `processing` have not left the shop).
    public var isInTransit: Bool {
        guard !isPickup, let status else { return false }
        return status == "shipped" || status == "onTheWay" || status == "outForDelivery"
    }

    /// `fulfillmentIdentifier`.
    public var identifier: String? {
        get { text("fulfillmentIdentifier") }
        set { set("fulfillmentIdentifier", newValue) }
    }
    /// `status`, in Wallet's vocabulary for its kind.
    public var status: String? {
        get { text("status") }
        set { set("status", newValue) }
    }
    /// `statusDescription`: what Wallet shows under the status.
    public var statusDescription: String? {
        get { text("statusDescription") }
        set { set("statusDescription", newValue) }
    }
    /// `carrier`.
    public var carrier: String? {
        get { text("carrier") }
        set { set("carrier", newValue) }
    }
    /// `trackingNumber`.
    public var trackingNumber: String? {
        get { text("trackingNumber") }
        set { set("trackingNumber", newValue) }
    }
    /// `trackingURL`.
    public var trackingURL: String? {
        get { text("trackingURL") }
        set { set("trackingURL", newValue) }
    }
    /// `shippedAt`, RFC 3339.
    public var shippedAt: String? {
        get { text("shippedAt") }
        set { set("shippedAt", newValue) }
    }
    /// `deliveredAt`, RFC 3339.
    public var deliveredAt: String? {
        get { text("deliveredAt") }
        set { set("deliveredAt", newValue) }
    }
    /// `pickedUpAt`, RFC 3339.
    public var pickedUpAt: String? {
        get { text("pickedUpAt") }
        set { set("pickedUpAt", newValue) }
    }
    /// `estimatedDeliveryAt`, RFC 3339.
    public var estimatedDeliveryAt: String? {
        get { text("estimatedDeliveryAt") }
        set { set("estimatedDeliveryAt", newValue) }
    }
    /// `estimatedDeliveryWindowDuration`, an ISO 8601 duration.
    public var estimatedDeliveryWindowDuration: String? {
        get { text("estimatedDeliveryWindowDuration") }
        set { set("estimatedDeliveryWindowDuration", newValue) }
    }

    /// The fields that say how far a fulfillment has come (what a logistics partner may change); the rest of it is
    /// the merchant's.
    public static let progressFields: Set<String> = [
        "status", "statusDescription", "carrier", "trackingNumber", "trackingURL", "estimatedDeliveryAt",
        "estimatedDeliveryWindowDuration", "shippedAt", "deliveredAt", "pickupAt", "pickupWindowDuration", "pickedUpAt",
        "notes",
    ]

    private func text(_ key: String) -> String? {
        fields[key]?.stringValue
    }

    /// Sets `key` to `value`, or removes it for nil.
    private mutating func set(_ key: String, _ value: String?) {
        fields[key] = value.map(JSONValue.string)
    }
}

extension OrderDocument {
    /// The order's fulfillments, each a lossless view; set them back to change `fulfillments`. A member of the array
    /// that is not an object is kept as it is (the validator names it), and is not among the views.
    public var fulfillmentViews: [FulfillmentView] {
        (self["fulfillments"]?.arrayValue ?? []).compactMap { $0.objectValue.map(FulfillmentView.init) }
    }

    /// This document with `change` made to each of its fulfillments (and the array written back only when one changed).
    public func changingFulfillments(_ change: (inout FulfillmentView) throws -> Void) rethrows -> OrderDocument {
        guard let array = self["fulfillments"]?.arrayValue else { return self }
        var changed = false
        let fulfillments = try array.map { value -> JSONValue in
            guard let object = value.objectValue else { return value }
            var view = FulfillmentView(object)
            try change(&view)
            if view.fields != object { changed = true }
            return .object(view.fields)
        }
        guard changed else { return self }
        var fields = self.fields
        fields["fulfillments"] = .array(fulfillments)
        return OrderDocument(fields: fields)
    }
}
