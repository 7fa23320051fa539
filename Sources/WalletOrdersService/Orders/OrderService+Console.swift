import Foundation
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// What the operator's console reads and does: the search, an order's whole story, the activity its charts draw, and
/// the two actions (pushes sent again, a link revoked).
extension OrderService {
    /// Orders for the console's list. A search that is a merchant's slug lists that merchant's orders; any other
    /// search names orders by identifier, order number, tracking number, device or push token prefix
    /// (`OrderFilter.text`). Answers the merchant the search named, if it named one.
    public func consoleOrders(
        search: String?,
        filter: OrderFilter,
        page: PageRequest
    ) async throws -> (page: Page<OrderSummary>, merchant: Merchant?) {
        var filter = filter
        var named: Merchant?
        if let search = search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            if let merchant = try await merchants.merchant(slug: search.lowercased()) {
                named = merchant
                filter.merchant = merchant.id
            } else {
                filter.text = search
            }
        }
        return (try await store.orders.orders(filter, page: page), named)
    }

    /// Everything the console shows of one order, its newest versions below `versionsBefore` (a version number)
    /// when given; nil when there is no such order.
    public func orderStory(type: String, id: String, versionsBefore: Int64? = nil) async throws -> OrderStory? {
        guard let order = try await store.orders.order(type: type, id: id) else { return nil }
        async let versions = store.orders.versions(
            type: type,
            id: id,
            page: PageRequest(limit: OrderStory.versionsShown, before: versionsBefore)
        )
        async let registrations = store.registrations.registrations(RegistrationFilter(type: type, id: id), limit: 1_000)
        async let pushes = store.pushes.pushes(PushFilter(type: type, id: id), page: PageRequest(limit: OrderStory.rows))
        async let logs = store.logs.logs(LogFilter(containing: id), page: PageRequest(limit: OrderStory.rows))
        async let links = store.links.orderLinks(type: type, id: id)
        async let deliveries = store.webhooks.webhookDeliveries(type: type, id: id, limit: OrderStory.rows)
        return OrderStory(
            order: order,
            merchant: try await merchants.merchant(id: order.merchantID),
            versions: try await versions.records,
            olderVersions: try await versions.next,
            registrations: try await registrations,
            pushes: try await pushes.records,
            logs: try await logs.records,
            links: try await links,
            deliveries: try await deliveries
        )
    }

    /// The current package of an order, as devices get it, and what the verifier finds in it.
    public func verifiedPackage(type: String, id: String) async throws -> (package: Data, report: PackageReport) {
        let fetched = try await currentPackage(type: type, id: id)
        let data = Data(fetched.package.readableBytesView)
        let report = PackageVerifier.verify(data, allowHTTPWebService: webServiceURL.hasPrefix("http://"))
        return (data, report)
    }

    /// What happened over the last `days` days (today included), of every order or of one merchant's.
    public func activity(merchant: Int64?, days: Int) async throws -> StoreActivity {
        let now = now()
        let since = Date(timeIntervalSince1970: TimeInterval(StoreActivity.day(now) - Int64(days - 1)) * 86_400)
        return try await store.console.activity(merchant: merchant, since: since)
    }

    /// Queues a push to every device registered for an order again (an operator's action); answers how many, nil
    /// when there is no such order.
    public func resendPushes(type: String, id: String) async throws -> Int? {
        try await store.registrations.resendPushes(type: type, id: id)
    }
}

/// One order as the console shows it: its record, its newest versions with what they changed, its devices, pushes,
/// the device logs that name it, its links and webhook deliveries.
public struct OrderStory: Sendable {
    /// How many of its pushes, device log entries and deliveries are shown, newest first.
    public static let rows = 100
    /// How many of its versions a page shows, newest first; older ones are on the pages after.
    public static let versionsShown = 20

    public let order: StoredOrder
    public let merchant: Merchant?
    /// Newest first, at most `versionsShown`.
    public let versions: [OrderVersion]
    /// Where the page of older versions starts (the `versionsBefore` to ask for); nil when these are the oldest.
    public let olderVersions: Int64?
    public let registrations: [Registration]
    public let pushes: [PushRecord]
    public let logs: [DeviceLogEntry]
    public let links: [OrderLinkState]
    public let deliveries: [WebhookDelivery]
}
