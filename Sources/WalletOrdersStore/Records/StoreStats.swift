import Foundation
import WalletOrdersModel

/// Counts for admins: what the database holds and how pushes went lately.
public struct StoreStats: Sendable, Codable, Equatable {
    public let orders: Int
    public let ordersByStatus: [Order.Status: Int]
    public let registrations: Int
    public let devices: Int
    public let deviceLogs: Int
    /// Pushes waiting to be sent: pending or being sent.
    public let outboxDepth: Int
    public let pushesByStatus: [PushStatus: Int]
    /// Pushes that reached `delivered` or `failed` in the last hour and the last day, by that status.
    public let pushesLastHour: [PushStatus: Int]
    public let pushesLastDay: [PushStatus: Int]

    public init(
        orders: Int,
        ordersByStatus: [Order.Status: Int],
        registrations: Int,
        devices: Int,
        deviceLogs: Int,
        pushes: PushCounts,
        pushesLastHour: [PushStatus: Int],
        pushesLastDay: [PushStatus: Int]
    ) {
        self.orders = orders
        self.ordersByStatus = ordersByStatus
        self.registrations = registrations
        self.devices = devices
        self.deviceLogs = deviceLogs
        self.outboxDepth = pushes.outboxDepth
        self.pushesByStatus = pushes.byStatus
        self.pushesLastHour = pushesLastHour
        self.pushesLastDay = pushesLastDay
    }
}
