import Foundation
import Synchronization
import WalletOrdersStore

/// A real store that counts the calls made on it by name, for tests that must show how little a request reads.
final class CountingStore: OrderStore {
    let store: any OrderStore
    private let counts = Mutex<[String: Int]>([:])

    init(_ store: any OrderStore) {
        self.store = store
    }

    /// Calls made so far, by method name.
    var calls: [String: Int] { counts.withLock { $0 } }
    /// How many calls were made so far, of every method.
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
    func reset() { counts.withLock { $0.removeAll() } }

    private func count(_ name: String = #function) {
        let method = String(name.prefix { $0 != "(" })
        counts.withLock { $0[method, default: 0] += 1 }
    }

    var location: String { store.location }
    func migrate() async throws -> [String] {
        count()
        return try await store.migrate()
    }
    func pendingMigrations() async throws -> [String] {
        count()
        return try await store.pendingMigrations()
    }
    func checkWritable() async throws {
        count()
        try await store.checkWritable()
    }
    func isReachable() async -> Bool {
        count()
        return await store.isReachable()
    }
    func diskSpace() -> DiskSpace? {
        count()
        return store.diskSpace()
    }
    func optimize() async throws {
        count()
        try await store.optimize()
    }
    func time() async throws -> Date {
        count()
        return try await store.time()
    }
    func close() async { await store.close() }
    func events() -> AsyncStream<StoreEvent> { store.events() }

    func createOrder(_ order: OrderWrite) async throws -> StoredOrder {
        count()
        return try await store.createOrder(order)
    }
    func currentOrder(type: String, id: String) async throws -> CurrentOrder? {
        count()
        return try await store.currentOrder(type: type, id: id)
    }
    func updateOrder(_ order: OrderWrite, expectedVersion: Int, now: Date) async throws -> OrderUpdate {
        count()
        return try await store.updateOrder(order, expectedVersion: expectedVersion, now: now)
    }
    func order(type: String, id: String) async throws -> StoredOrder? {
        count()
        return try await store.order(type: type, id: id)
    }
    func orderHead(type: String, id: String) async throws -> OrderHead? {
        count()
        return try await store.orderHead(type: type, id: id)
    }
    func orderForFetch(type: String, id: String) async throws -> FetchedOrder? {
        count()
        return try await store.orderForFetch(type: type, id: id)
    }
    func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool {
        count()
        return try await store.savePackage(type: type, id: id, version: version, data: data)
    }
    func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        count()
        return try await store.orders(filter, page: page)
    }
    func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion> {
        count()
        return try await store.versions(type: type, id: id, page: page)
    }

    func register(
        device: String,
        type: String,
        id: String,
        pushToken: String,
        now: Date,
        maxDevices: Int?
    ) async throws
        -> RegistrationOutcome
    {
        count()
        return try await store.register(device: device, type: type, id: id, pushToken: pushToken, now: now, maxDevices: maxDevices)
    }
    func unregister(device: String, type: String, id: String, now: Date) async throws {
        count()
        try await store.unregister(device: device, type: type, id: id, now: now)
    }
    func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        count()
        return try await store.changedOrders(device: device, type: type, since: tag)
    }
    func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        count()
        return try await store.registrations(filter, limit: limit)
    }
    func registrationCount(type: String, id: String) async throws -> Int {
        count()
        return try await store.registrationCount(type: type, id: id)
    }
    func resendPushes(type: String, id: String, now: Date) async throws -> Int? {
        count()
        return try await store.resendPushes(type: type, id: id, now: now)
    }
    func pruneFailedRegistrations() async throws -> Int {
        count()
        return try await store.pruneFailedRegistrations()
    }

    func appendLogs(
        _ messages: [String],
        merchants: [String: Int64],
        remoteAddress: String?,
        now: Date,
        maxBytes: Int
    )
        async throws -> DeviceLogAppend
    {
        count()
        return try await store.appendLogs(messages, merchants: merchants, remoteAddress: remoteAddress, now: now, maxBytes: maxBytes)
    }
    func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        count()
        return try await store.logs(filter, page: page)
    }
    func logBytes() async throws -> Int {
        count()
        return try await store.logBytes()
    }
    func pruneLogs(before date: Date) async throws -> Int {
        count()
        return try await store.pruneLogs(before: date)
    }

    func claimDuePushes(types: [String], limit: Int, claim: PushClaim, now: Date) async throws -> [PushJob] {
        count()
        return try await store.claimDuePushes(types: types, limit: limit, claim: claim, now: now)
    }
    func renewClaims(owner: String, until: Date) async throws -> Int {
        count()
        return try await store.renewClaims(owner: owner, until: until)
    }
    func releaseClaims(owner: String) async throws -> Int {
        count()
        return try await store.releaseClaims(owner: owner)
    }
    func reclaimExpiredClaims(now: Date) async throws -> Int {
        count()
        return try await store.reclaimExpiredClaims(now: now)
    }
    func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String, now: Date) async throws {
        count()
        try await store.finishPushes(outcomes, owner: owner, now: now)
    }
    func nextPushDue(types: [String]) async throws -> Date? {
        count()
        return try await store.nextPushDue(types: types)
    }
    func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord> {
        count()
        return try await store.pushes(filter, page: page)
    }
    func pushCounts() async throws -> PushCounts {
        count()
        return try await store.pushCounts()
    }
    func prunePushes(finishedBefore date: Date) async throws -> Int {
        count()
        return try await store.prunePushes(finishedBefore: date)
    }

    func stats(now: Date) async throws -> StoreStats {
        count()
        return try await store.stats(now: now)
    }
    func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws {
        count()
        try await store.importRecords(orders: orders, registrations: registrations)
    }

    func createMerchant(
        slug: String,
        displayName: String,
        orderTypes: [String],
        limits: MerchantLimits,
        now: Date
    )
        async throws -> Merchant
    {
        count()
        return try await store.createMerchant(slug: slug, displayName: displayName, orderTypes: orderTypes, limits: limits, now: now)
    }
    func updateMerchant(slug: String, _ change: MerchantChange, now: Date) async throws -> Merchant? {
        count()
        return try await store.updateMerchant(slug: slug, change, now: now)
    }
    /// Not counted, as the two below: the merchant directory reads them on its own, not for a request.
    func merchants() async throws -> [Merchant] {
        try await store.merchants()
    }
    func setMerchantTemplate(slug: String, template: Data?, now: Date) async throws -> Merchant? {
        count()
        return try await store.setMerchantTemplate(slug: slug, template: template, now: now)
    }
    func merchantTemplate(merchantID: Int64) async throws -> (version: Int, data: Data)? {
        count()
        return try await store.merchantTemplate(merchantID: merchantID)
    }
    func addMerchantKey(_ key: MerchantKey) async throws {
        count()
        try await store.addMerchantKey(key)
    }
    func merchantKeys(merchantID: Int64?) async throws -> [MerchantKey] {
        try await store.merchantKeys(merchantID: merchantID)
    }
    func revokeMerchantKey(merchantID: Int64, keyID: String, now: Date) async throws -> Bool {
        count()
        return try await store.revokeMerchantKey(merchantID: merchantID, keyID: keyID, now: now)
    }
    func recordKeyUse(_ uses: [String: Date]) async throws {
        count()
        try await store.recordKeyUse(uses)
    }
    func merchantsVersion() async throws -> Int64 {
        try await store.merchantsVersion()
    }

    func createPartner(
        name: String,
        merchantIDs: [Int64],
        provider: String?,
        providerSecret: String?,
        now: Date
    ) async throws -> Partner {
        count()
        return try await store.createPartner(
            name: name,
            merchantIDs: merchantIDs,
            provider: provider,
            providerSecret: providerSecret,
            now: now
        )
    }
    func partners() async throws -> [Partner] {
        try await store.partners()
    }
    func changePartner(id: Int64, _ change: PartnerChange) async throws -> Partner? {
        count()
        return try await store.changePartner(id: id, change)
    }
    func deletePartner(id: Int64, eventSource: String) async throws -> Bool {
        count()
        return try await store.deletePartner(id: id, eventSource: eventSource)
    }
    func addPartnerKey(_ key: PartnerKey) async throws {
        count()
        try await store.addPartnerKey(key)
    }
    func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey] {
        try await store.partnerKeys(partnerID: partnerID)
    }
    func revokePartnerKey(partnerID: Int64, keyID: String, now: Date) async throws -> Bool {
        count()
        return try await store.revokePartnerKey(partnerID: partnerID, keyID: keyID, now: now)
    }
    func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment] {
        try await store.trackedFulfillments(trackingNumbers: trackingNumbers, merchantIDs: merchantIDs)
    }
    func trackedParcels(type: String, id: String) async throws -> [TrackedParcel] {
        try await store.trackedParcels(type: type, id: id)
    }
    func receiveTrackingEvents(_ events: [TrackingEventRecord], now: Date) async throws -> [TrackingEventState?] {
        count()
        return try await store.receiveTrackingEvents(events, now: now)
    }
    func settleTrackingEvents(_ settled: [(source: String, id: String, state: TrackingEventState)]) async throws {
        count()
        try await store.settleTrackingEvents(settled)
    }
    func forgetTrackingEvents(_ events: [(source: String, id: String)]) async throws {
        count()
        try await store.forgetTrackingEvents(events)
    }
    func waitingTrackingEvents(trackingNumbers: [String], sources: [String]) async throws -> [TrackingEventRecord] {
        try await store.waitingTrackingEvents(trackingNumbers: trackingNumbers, sources: sources)
    }
    func waitingTrackingEventCount(source: String) async throws -> Int {
        try await store.waitingTrackingEventCount(source: source)
    }
    func pruneTrackingEvents(receivedBefore date: Date) async throws -> Int {
        count()
        return try await store.pruneTrackingEvents(receivedBefore: date)
    }

    func addOrderLink(_ link: OrderLink, maxLive: Int) async throws {
        count()
        try await store.addOrderLink(link, maxLive: maxLive)
    }
    func useOrderLink(hash: Data, client: String, now: Date, grace: TimeInterval) async throws -> OrderLinkUse? {
        count()
        return try await store.useOrderLink(hash: hash, client: client, now: now, grace: grace)
    }
    func peekOrderLink(hash: Data, client: String, now: Date, grace: TimeInterval) async throws -> OrderLinkUse? {
        count()
        return try await store.peekOrderLink(hash: hash, client: client, now: now, grace: grace)
    }
    func revokeOrderLink(id: String, merchantID: Int64, type: String, orderID: String, now: Date) async throws -> Bool {
        count()
        return try await store.revokeOrderLink(id: id, merchantID: merchantID, type: type, orderID: orderID, now: now)
    }
    func pruneOrderLinks(expiredBefore date: Date) async throws -> Int {
        count()
        return try await store.pruneOrderLinks(expiredBefore: date)
    }
    func addWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerMerchant: Int) async throws {
        count()
        try await store.addWebhookEndpoint(endpoint, maxPerMerchant: maxPerMerchant)
    }
    func webhookEndpoints(merchantID: Int64?) async throws -> [WebhookEndpoint] {
        count()
        return try await store.webhookEndpoints(merchantID: merchantID)
    }
    func changeWebhookEndpoint(
        id: String,
        merchantID: Int64,
        _ change: WebhookEndpointChange,
        now: Date
    ) async throws
        -> WebhookEndpoint?
    {
        count()
        return try await store.changeWebhookEndpoint(id: id, merchantID: merchantID, change, now: now)
    }
    func deleteWebhookEndpoint(id: String, merchantID: Int64) async throws -> Bool {
        count()
        return try await store.deleteWebhookEndpoint(id: id, merchantID: merchantID)
    }
    func claimDueDeliveries(limit: Int, claim: PushClaim, now: Date) async throws -> [WebhookJob] {
        count()
        return try await store.claimDueDeliveries(limit: limit, claim: claim, now: now)
    }
    func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String, now: Date) async throws {
        count()
        try await store.finishDeliveries(outcomes, owner: owner, now: now)
    }
    func renewDeliveryClaims(owner: String, until: Date) async throws -> Int {
        count()
        return try await store.renewDeliveryClaims(owner: owner, until: until)
    }
    func releaseDeliveries(owner: String) async throws -> Int {
        count()
        return try await store.releaseDeliveries(owner: owner)
    }
    func nextDeliveryDue() async throws -> Date? {
        count()
        return try await store.nextDeliveryDue()
    }
    func webhookDeliveries(endpointID: String, merchantID: Int64, page: PageRequest) async throws -> Page<WebhookDelivery>? {
        count()
        return try await store.webhookDeliveries(endpointID: endpointID, merchantID: merchantID, page: page)
    }
    func redeliver(deliveryID: Int64, endpointID: String, merchantID: Int64, now: Date) async throws -> WebhookDelivery? {
        count()
        return try await store.redeliver(deliveryID: deliveryID, endpointID: endpointID, merchantID: merchantID, now: now)
    }
    func pruneDeliveries(finishedBefore date: Date) async throws -> Int {
        count()
        return try await store.pruneDeliveries(finishedBefore: date)
    }

    func orderLinks(type: String, id: String) async throws -> [OrderLinkState] {
        count()
        return try await store.orderLinks(type: type, id: id)
    }
    func webhookDeliveries(type: String, id: String, limit: Int) async throws -> [WebhookDelivery] {
        count()
        return try await store.webhookDeliveries(type: type, id: id, limit: limit)
    }
    func activity(merchant: Int64?, since: Date, now: Date) async throws -> StoreActivity {
        count()
        return try await store.activity(merchant: merchant, since: since, now: now)
    }
}
