import Foundation

/// Devices registered for orders' updates, and the listing of what changed that Wallet asks for.
public protocol RegistrationStorage: Sendable {
    /// Registers a device for an order's updates; an existing registration takes the new push token. A new device
    /// of an order that has `maxDevices` registered already is refused with `StoreError.tooManyDevices` (devices
    /// registering at the same moment for the last place may pass it by a few on PostgreSQL). When the device is the
    /// order's first, `firstDevice` is queued for the order's merchant in the same transaction.
    func register(
        device: String,
        type: String,
        id: String,
        pushToken: String,
        maxDevices: Int?,
        firstDevice: WebhookNotice?
    ) async throws
        -> RegistrationOutcome
    /// Removes a device's registration for an order; nothing happens when there is none. When it was the order's
    /// last device, `lastDevice` is queued for the order's merchant in the same transaction.
    func unregister(device: String, type: String, id: String, lastDevice: WebhookNotice?) async throws
    /// The device's orders of `type` changed after `tag` (all of them without one); nil when the device is
    /// registered for no order of that type. The answer's tag never runs ahead of a write not yet visible, so
    /// a device that hands it back never misses an update.
    func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders?
    /// Registrations newest first, of one device, one order type, one order, or all of them.
    func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration]
    /// How many devices are registered for an order.
    func registrationCount(type: String, id: String) async throws -> Int
    /// Queues a push to every device registered for an order again; answers how many, nil when there is no order.
    func resendPushes(type: String, id: String) async throws -> Int?
    /// Deletes registrations whose last push failed for good with nothing newer for them; answers how many.
    func pruneFailedRegistrations() async throws -> Int
}
