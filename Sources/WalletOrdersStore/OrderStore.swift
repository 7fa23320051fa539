import Foundation
import WalletOrdersModel

/// Where orders, their packages, device registrations, device logs and the push outbox live.
///
/// Two engines implement it: SQLite (one file, one writer, the embedded default) and PostgreSQL (several
/// instances of the service sharing one database). Every method is one transaction; a store never calls back
/// into the layers above it. Both engines pass the same conformance tests.
public protocol OrderStore: Sendable {
    /// Where the data lives, for people: a file path or `postgres://user@host:port/db` without the password.
    var location: String { get }

    /// Applies the migrations not yet applied, in order, and returns their names.
    func migrate() async throws -> [String]
    /// The migrations not yet applied, in order.
    func pendingMigrations() async throws -> [String]
    /// Throws unless the database takes a write.
    func checkWritable() async throws
    /// Whether the database answers a query now.
    func isReachable() async -> Bool
    /// The room left on the filesystem holding the database; nil when the database lives elsewhere (PostgreSQL,
    /// whose server watches its own disk). Cheap: `/healthz` asks on every request.
    func diskSpace() -> DiskSpace?
    /// Keeps the query planner's statistics current; cheap when nothing changed. The service calls it from time to time.
    func optimize() async throws
    /// The time by the store's clock: the database server's for PostgreSQL, the one clock every instance sharing it
    /// reads alike; this host's for SQLite, whose instances share the host. See `StoreClock`.
    func time() async throws -> Date
    /// Releases connections and background work; the store is unusable afterwards.
    func close() async

    /// What changes to watch: pushes queued and order versions written, by this process or (PostgreSQL) any
    /// other instance. Each call is a new subscription; it ends when the store closes.
    func events() -> AsyncStream<StoreEvent>

    // MARK: Orders

    /// Stores a new order (version 1) with its assets and package; throws `StoreError.orderExists` when the
    /// type and identifier are taken.
    func createOrder(_ order: OrderWrite) async throws -> StoredOrder
    /// The order with its assets, as the write path reads it before building the next version; nil when none.
    func currentOrder(type: String, id: String) async throws -> CurrentOrder?
    /// Commits the next version of an order, if it is still at `expectedVersion`: the document, its package, its
    /// history row and one push per registered device (due at `now`), all or nothing. Throws
    /// `StoreError.versionConflict` when another write got there first, `StoreError.orderNotFound` when it is gone.
    func updateOrder(_ order: OrderWrite, expectedVersion: Int, now: Date) async throws -> OrderUpdate
    /// The order, or nil when there is none.
    func order(type: String, id: String) async throws -> StoredOrder?
    /// What checking a device's token needs, without the document or package; nil when there is no such order.
    func orderHead(type: String, id: String) async throws -> OrderHead?
    /// What answering a device about an order needs, and the stored package of its current version when there
    /// is one; nil when there is no such order. One read: this is the request devices make most.
    func orderForFetch(type: String, id: String) async throws -> FetchedOrder?
    /// Stores the package of `version`, unless the order has moved on; answers whether it was stored.
    @discardableResult
    func savePackage(type: String, id: String, version: Int, data: Data) async throws -> Bool
    /// Orders newest first (or oldest first), filtered, one page. Every filter is served by an index, so that a
    /// page answers in milliseconds at millions of orders.
    func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary>
    /// An order's versions, newest first, one page: `page.before` is a version number, and a page holds the
    /// versions below it.
    func versions(type: String, id: String, page: PageRequest) async throws -> Page<OrderVersion>

    // MARK: Registrations

    /// Registers a device for an order's updates; an existing registration takes the new push token. A new device
    /// of an order that has `maxDevices` registered already is refused with `StoreError.tooManyDevices` (devices
    /// registering at the same moment for the last place may pass it by a few on PostgreSQL).
    func register(
        device: String,
        type: String,
        id: String,
        pushToken: String,
        now: Date,
        maxDevices: Int?
    ) async throws
        -> RegistrationOutcome
    /// Removes a device's registration for an order; nothing happens when there is none.
    func unregister(device: String, type: String, id: String, now: Date) async throws
    /// The device's orders of `type` changed after `tag` (all of them without one); nil when the device is
    /// registered for no order of that type. The answer's tag never runs ahead of a write not yet visible, so
    /// a device that hands it back never misses an update.
    func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders?
    /// Registrations newest first, of one device, one order type, one order, or all of them.
    func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration]
    /// How many devices are registered for an order.
    func registrationCount(type: String, id: String) async throws -> Int
    /// Queues a push to every device registered for an order again; answers how many, nil when there is no order.
    func resendPushes(type: String, id: String, now: Date) async throws -> Int?
    /// Deletes registrations whose last push failed for good with nothing newer for them; answers how many.
    func pruneFailedRegistrations() async throws -> Int

    // MARK: Device logs

    /// Stores messages a device sent to the log endpoint, in one transaction: a message an entry already holds
    /// is folded into it (its count grows, its last-seen time and sender become these), the others become new
    /// entries; then the entries last seen longest ago go until the sizes of all entries
    /// (`DeviceLogEntry.storedSize(of:)`) add up to at most `maxBytes`.
    /// `merchants` names the merchant of the messages that name one of a platform merchant's orders; the others are
    /// the default merchant's to read. An entry keeps the merchant of its message.
    func appendLogs(
        _ messages: [String],
        merchants: [String: Int64],
        remoteAddress: String?,
        now: Date,
        maxBytes: Int
    ) async throws -> DeviceLogAppend

    /// Device log entries, newest first (by when first received), filtered, one page.
    func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry>
    /// What the device log entries add up to, in `DeviceLogEntry.storedSize(of:)` bytes.
    func logBytes() async throws -> Int
    /// Deletes device log entries last received before `date`; answers how many.
    func pruneLogs(before date: Date) async throws -> Int

    // MARK: The push outbox

    /// Claims up to `limit` due pending pushes of the order `types` for `claim`, oldest first: they become
    /// `sending`, held by the claim's owner until its lease ends. Two instances never claim the same push.
    func claimDuePushes(types: [String], limit: Int, claim: PushClaim, now: Date) async throws -> [PushJob]
    /// Extends the lease of every push `owner` holds; answers how many it holds.
    @discardableResult
    func renewClaims(owner: String, until: Date) async throws -> Int
    /// Puts the pushes `owner` holds back in the queue (a graceful stop); answers how many.
    @discardableResult
    func releaseClaims(owner: String) async throws -> Int
    /// Puts pushes whose lease ended (their instance died) back in the queue; answers how many.
    @discardableResult
    func reclaimExpiredClaims(now: Date) async throws -> Int
    /// Records what became of pushes `owner` sent, in one transaction. A push whose claim `owner` no longer
    /// holds (it was reclaimed) is left to whoever holds it now.
    func finishPushes(_ outcomes: [(PushJob, PushOutcome)], owner: String, now: Date) async throws
    /// When the next pending push of the order `types` is due, or nil when none is pending.
    func nextPushDue(types: [String]) async throws -> Date?
    /// Outbox rows newest first, filtered, one page.
    func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord>
    /// How many pushes the outbox holds in each status.
    func pushCounts() async throws -> PushCounts
    /// Deletes delivered and failed pushes last touched before `date`; answers how many.
    func prunePushes(finishedBefore date: Date) async throws -> Int

    // MARK: Merchants

    /// Adds a merchant; throws `StoreError.merchantExists` when the slug is taken, or when the default merchant's
    /// order identifiers already use it (`slug:…`), so that no two merchants' identifiers can meet.
    func createMerchant(
        slug: String,
        displayName: String,
        orderTypes: [String],
        limits: MerchantLimits,
        now: Date
    )
        async throws -> Merchant
    /// Changes the fields `change` names; nil when there is no such merchant.
    func updateMerchant(slug: String, _ change: MerchantChange, now: Date) async throws -> Merchant?
    /// Every merchant, in the order they were made, with what they hold.
    func merchants() async throws -> [Merchant]
    /// Sets a merchant's template (opaque to the store; nil removes it) and moves its template version on; nil when
    /// there is no such merchant.
    func setMerchantTemplate(slug: String, template: Data?, now: Date) async throws -> Merchant?
    /// A merchant's template and its version; nil when it has none.
    func merchantTemplate(merchantID: Int64) async throws -> (version: Int, data: Data)?
    /// Stores a merchant's new key.
    func addMerchantKey(_ key: MerchantKey) async throws
    /// The keys of one merchant, or of every merchant, revoked ones included, oldest first.
    func merchantKeys(merchantID: Int64?) async throws -> [MerchantKey]
    /// Revokes one of a merchant's keys; answers whether it held that key unrevoked.
    func revokeMerchantKey(merchantID: Int64, keyID: String, now: Date) async throws -> Bool
    /// Records when merchant and partner keys were last used (key id to time), without moving `merchantsVersion` on.
    func recordKeyUse(_ uses: [String: Date]) async throws
    /// Moves on with every change to merchants, their templates and keys, and to partners and theirs: a process that does not hear another's
    /// events (the command line beside a running server on SQLite) notices a change by it.
    func merchantsVersion() async throws -> Int64

    // MARK: Partners

    /// Adds a logistics partner for the merchants `merchantIDs`; throws `StoreError.partnerExists` when the name is
    /// taken.
    func createPartner(
        name: String,
        merchantIDs: [Int64],
        provider: String?,
        providerSecret: String?,
        now: Date
    ) async throws -> Partner
    /// Every partner, in the order they were made, with their providers' secrets.
    func partners() async throws -> [Partner]
    /// Changes what `change` names of the partner `id`; nil when there is no such partner.
    func changePartner(id: Int64, _ change: PartnerChange) async throws -> Partner?
    /// Deletes the partner `id`, its keys, its links to merchants, and the tracking events it sent (kept with the
    /// source `eventSource`); answers whether there was such a partner. The versions it made keep its name.
    func deletePartner(id: Int64, eventSource: String) async throws -> Bool
    /// Stores a partner's new key.
    func addPartnerKey(_ key: PartnerKey) async throws
    /// The keys of one partner, or of every partner, revoked ones included, oldest first.
    func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey]
    /// Revokes one of a partner's keys; answers whether it held that key unrevoked.
    func revokePartnerKey(partnerID: Int64, keyID: String, now: Date) async throws -> Bool

    // MARK: Tracking events

    /// The fulfillments that follow parcels with these tracking numbers, of orders of `merchantIDs`.
    func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment]
    /// The parcels an order's fulfillments follow.
    func trackedParcels(type: String, id: String) async throws -> [TrackedParcel]
    /// Keeps events not kept yet, as `received`; answers for each event nil when it was new, or the state of the one
    /// kept before with its source and id (the first of two alike in `events` is the one kept).
    func receiveTrackingEvents(_ events: [TrackingEventRecord], now: Date) async throws -> [TrackingEventState?]
    /// Records what became of events.
    func settleTrackingEvents(_ settled: [(source: String, id: String, state: TrackingEventState)]) async throws
    /// Deletes events still `received`: those refused, which are not kept (sent again, they are new).
    func forgetTrackingEvents(_ events: [(source: String, id: String)]) async throws
    /// The events from `sources` about these tracking numbers that are `pending` or still `received`, oldest first;
    /// found by tracking number and sender, however many events the senders keep.
    func waitingTrackingEvents(trackingNumbers: [String], sources: [String]) async throws -> [TrackingEventRecord]
    /// How many events from `source` the store keeps `pending` or still `received`: what the bound on waiting
    /// events counts.
    func waitingTrackingEventCount(source: String) async throws -> Int
    /// Deletes events received before `date`; answers how many.
    @discardableResult
    func pruneTrackingEvents(receivedBefore date: Date) async throws -> Int

    // MARK: Download links

    /// Stores a new link of an order; throws `StoreError.tooManyLinks` when the order has `maxLive` links that are
    /// neither expired nor revoked.
    func addOrderLink(_ link: OrderLink, maxLive: Int) async throws
    /// Takes one download from the link whose reference hashes to `hash`, and answers whose order it is for; nil
    /// alike for a link that does not exist, expired, was revoked or is used up. A link that is not reusable serves
    /// its first download, and for `grace` after it the downloads of the same `client` (a retry), no other.
    func useOrderLink(hash: Data, client: String, now: Date, grace: TimeInterval) async throws -> OrderLinkUse?
    /// Whose order the link whose reference hashes to `hash` is for, when `useOrderLink` would serve `client` at
    /// `now`, taking nothing: a `HEAD`, which mail scanners and link previews send, must not use a link up.
    /// `downloads` is the count so far.
    func peekOrderLink(hash: Data, client: String, now: Date, grace: TimeInterval) async throws -> OrderLinkUse?
    /// Revokes a link of an order of `merchantID`; answers whether there was such a link, unrevoked.
    func revokeOrderLink(id: String, merchantID: Int64, type: String, orderID: String, now: Date) async throws -> Bool
    /// Deletes the links that expired before `date`; answers how many.
    @discardableResult
    func pruneOrderLinks(expiredBefore date: Date) async throws -> Int

    // MARK: Webhooks

    /// Stores a merchant's new endpoint; throws `StoreError.tooManyWebhooks` when the merchant has `maxPerMerchant`.
    func addWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerMerchant: Int) async throws
    /// The endpoints of one merchant, or of every merchant (nil), oldest first.
    func webhookEndpoints(merchantID: Int64?) async throws -> [WebhookEndpoint]
    /// Changes what `change` names of an endpoint of `merchantID`; nil when the merchant has no such endpoint.
    /// Enabling an endpoint puts its failed deliveries of the last `retention` back in the queue.
    func changeWebhookEndpoint(
        id: String,
        merchantID: Int64,
        _ change: WebhookEndpointChange,
        now: Date
    ) async throws
        -> WebhookEndpoint?
    /// Deletes an endpoint of `merchantID` with its deliveries; answers whether there was one.
    func deleteWebhookEndpoint(id: String, merchantID: Int64) async throws -> Bool
    /// Claims up to `limit` deliveries for `claim`, oldest first: the due pending deliveries of enabled endpoints,
    /// counting those whose claim's lease ran out (their instance died). They become `sending`; two instances never
    /// claim the same delivery.
    func claimDueDeliveries(limit: Int, claim: PushClaim, now: Date) async throws -> [WebhookJob]
    /// Records what became of deliveries `owner` sent; a delivery it no longer holds is left alone. A `failed`
    /// outcome disables the endpoint with its reason.
    func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String, now: Date) async throws
    /// Extends the lease of every delivery `owner` holds; answers how many it holds.
    @discardableResult
    func renewDeliveryClaims(owner: String, until: Date) async throws -> Int
    /// Puts the deliveries `owner` holds back in the queue (a graceful stop); answers how many.
    @discardableResult
    func releaseDeliveries(owner: String) async throws -> Int
    /// When the next delivery is due (a pending one of an enabled endpoint, or a claim whose lease runs out).
    func nextDeliveryDue() async throws -> Date?
    /// An endpoint's deliveries, newest first, one page; nil when `merchantID` has no such endpoint.
    func webhookDeliveries(
        endpointID: String,
        merchantID: Int64,
        page: PageRequest
    ) async throws
        -> Page<WebhookDelivery>?
    /// Queues a delivery of an endpoint of `merchantID` again, due at `now`, with the same message id; answers the
    /// delivery, nil when there is no such delivery.
    func redeliver(deliveryID: Int64, endpointID: String, merchantID: Int64, now: Date) async throws -> WebhookDelivery?
    /// Deletes delivered and failed deliveries last touched before `date`; answers how many.
    @discardableResult
    func pruneDeliveries(finishedBefore date: Date) async throws -> Int

    // MARK: The operator's console

    /// An order's download links, newest first, whatever became of them.
    func orderLinks(type: String, id: String) async throws -> [OrderLinkState]
    /// The webhook deliveries about an order, newest first, at most `limit`.
    func webhookDeliveries(type: String, id: String, limit: Int) async throws -> [WebhookDelivery]
    /// What happened day by day since `since`, of every order or of one merchant's.
    func activity(merchant: Int64?, since: Date, now: Date) async throws -> StoreActivity

    // MARK: Counts and bulk loading

    /// Counts for admins.
    func stats(now: Date) async throws -> StoreStats
    /// Loads many orders and registrations at once, without pushes or history beyond version 1: for imports
    /// and benchmarks. Orders come first; registrations must name orders that exist.
    func importRecords(orders: [ImportedOrder], registrations: [ImportedRegistration]) async throws
}

extension OrderStore {
    /// Every version of an order, oldest first: for tools that show its whole history.
    public func versions(type: String, id: String) async throws -> [OrderVersion] {
        var newestFirst: [OrderVersion] = []
        var before: Int64?
        repeat {
            let page = try await versions(type: type, id: id, page: PageRequest(limit: 500, before: before))
            newestFirst += page.records
            before = page.next
        } while before != nil
        return newestFirst.reversed()
    }
}
