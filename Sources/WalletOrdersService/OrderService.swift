import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// What the HTTP layer asks of the service: orders written, read and packaged, devices registered and answered,
/// with every rule applied here, not in the routes. Knows nothing of HTTP: it throws `OrderServiceError`s.
///
/// A write reads the order's current version, applies the change, validates it and builds and signs its package
/// outside any transaction, then asks the store to commit it only if the order is still at the version read; when
/// another write got there first, it starts again from the read. The store's lock is held for the commit alone.
public struct OrderService: Sendable {
    let store: any OrderStore
    public let orderTypes: [String: OrderType]
    /// Each order's `webServiceURL`.
    public let webServiceURL: String
    /// The clock every write and answer reads.
    public let now: @Sendable () -> Date
    let counters: Counters
    /// What is kept of device logs.
    public let logLimits: DeviceLogLimits
    /// The current package and head of recently fetched orders; nil when caching is off. See `FetchCache`.
    public let cache: FetchCache?
    /// Writes to one order from this instance take turns; see `update`.
    private let writes = KeyedLock()
    /// Merchant writes give way to device requests.
    let priority = DevicePriority(cores: ProcessInfo.processInfo.activeProcessorCount)

    /// How many times a write reads and builds again after losing a race to a write from another instance.
    static let maxWriteAttempts = 10
    /// Fields the service sets; a merchant may send them only unchanged.
    static let managedFields = ["authenticationToken", "webServiceURL", "createdAt", "updatedAt"]

    /// Hooks for counting what the service does (for metrics).
    public struct Counters: Sendable {
        /// A package was built and signed.
        public var packageBuilt: @Sendable () -> Void
        /// A stored package was served without building it.
        public var packageCacheHit: @Sendable () -> Void
        /// A request's log messages were kept or dropped.
        public var deviceLogs: @Sendable (DeviceLogReport) -> Void
        /// A fetch read the store: the fetch cache was off or did not hold the order.
        public var fetchReadStore: @Sendable () -> Void
        /// A merchant write waited for its turn (see `DevicePriority`).
        public var merchantWriteWaited: @Sendable () -> Void

        public init(packageBuilt: @escaping @Sendable () -> Void = {},
                    packageCacheHit: @escaping @Sendable () -> Void = {},
                    deviceLogs: @escaping @Sendable (DeviceLogReport) -> Void = { _ in },
                    fetchReadStore: @escaping @Sendable () -> Void = {},
                    merchantWriteWaited: @escaping @Sendable () -> Void = {}) {
            self.packageBuilt = packageBuilt
            self.packageCacheHit = packageCacheHit
            self.deviceLogs = deviceLogs
            self.fetchReadStore = fetchReadStore
            self.merchantWriteWaited = merchantWriteWaited
        }
    }

    /// The default size of the fetch cache: 64 MiB, a few thousand packages of a typical order.
    public static let defaultCacheCapacity = 64 << 20

    /// A service over `store`, with a fetch cache of `cacheCapacity` bytes (0: none).
    public init(store: any OrderStore, orderTypes: [OrderType], webServiceURL: String,
                now: @escaping @Sendable () -> Date = Date.init, counters: Counters = Counters(),
                logLimits: DeviceLogLimits = DeviceLogLimits(),
                cacheCapacity: Int = OrderService.defaultCacheCapacity) {
        self.store = store
        self.logLimits = logLimits
        self.orderTypes = Dictionary(uniqueKeysWithValues: orderTypes.map { ($0.identifier, $0) })
        self.webServiceURL = webServiceURL
        self.now = now
        self.counters = counters
        if cacheCapacity > 0 {
            let cache = FetchCache(capacity: cacheCapacity)
            let events = store.events()
            // Lives as long as the store: its event stream ends when the store closes. The cache stays off until
            // the stream's first `resync`.
            Task { for await event in events { cache.apply(event) } }
            self.cache = cache
        } else {
            cache = nil
        }
    }

    // MARK: Writing orders

    /// Creates an order from a merchant's body: order.json fields plus optional `assets` {path: base64}.
    public func create(_ body: JSONValue) async throws -> WrittenOrder {
        try await priority.merchantWrite(waited: counters.merchantWriteWaited) {
            try await WritePool.shared.run { try await createOnPool(body) }
        }
    }

    private func createOnPool(_ body: JSONValue) async throws -> WrittenOrder {
        let token = Random.token()
        let createdAt = Date(unixSeconds: now().unixSeconds)
        let (type, document, assets) = try newOrder(body, token: token, createdAt: createdAt)
        guard let id = document.orderIdentifier else { throw OrderServiceError.badRequest("orderIdentifier is missing") }
        let package = try await build(type, document, assets)
        do {
            let ticket = cache?.ticket()
            let order = try await store.createOrder(OrderWrite(
                orderTypeIdentifier: type.identifier, orderIdentifier: id, authenticationToken: token,
                document: document, createdAt: createdAt, updatedAt: createdAt, assets: assets, package: package.stored))
            cache?.written(type: type.identifier, id: id, head: order.head, package: ByteBuffer(bytes: package.data),
                           ticket: ticket)
            return WrittenOrder(order: order, pushesQueued: 0, warnings: package.warnings)
        } catch StoreError.orderExists {
            throw OrderServiceError.orderExists(type: type.identifier, id: id)
        }
    }

    /// The checks `create` runs on `body`, with nothing signed or stored: every problem that would refuse it, and
    /// the warnings it would draw. Whether the identifier is taken is not checked (that needs the store).
    public func validate(_ body: JSONValue) -> OrderValidation {
        do {
            // A placeholder token of the length the service makes: its value is never used.
            let (type, document, assets) = try newOrder(
                body, token: String(repeating: "0", count: 64), createdAt: Date(unixSeconds: now().unixSeconds))
            return try type.builder.validate(order: document, template: type.template, assets: assets)
        } catch let error as PackageError {
            guard case .invalidOrder(_, let problems) = Self.serviceError(error) else {
                return OrderValidation(problems: [OrderProblem(path: "", message: "\(error)")])
            }
            return OrderValidation(problems: problems)
        } catch OrderServiceError.invalidOrder(_, let problems) {
            return OrderValidation(problems: problems)
        } catch {
            return OrderValidation(problems: [OrderProblem(path: "", message: "\(error)")])
        }
    }

    /// A new order's type, its document with everything the service fills in, and its assets; throws
    /// `OrderServiceError.invalidOrder` with every problem found before the order itself is validated.
    private func newOrder(_ body: JSONValue, token: String, createdAt: Date) throws
        -> (OrderType, OrderDocument, [String: Data]) {
        guard var fields = body.objectValue else { throw OrderServiceError.badRequest("the body must be a JSON object") }
        let assets = try Self.decodeAssets(fields.removeValue(forKey: "assets"))
        var problems: [OrderProblem] = []
        for field in Self.managedFields where fields[field] != nil {
            problems.append(OrderProblem(path: field, message: "is set by the service; leave it out"))
        }
        let type: OrderType
        switch fields["orderTypeIdentifier"] {
        case nil:
            guard orderTypes.count == 1, let only = orderTypes.values.first else {
                throw OrderServiceError.invalid(problems + [OrderProblem(
                    path: "orderTypeIdentifier", message: "is required: this service signs more than one order type")])
            }
            type = only
        case .string(let identifier)?:
            guard let configured = orderTypes[identifier] else {
                throw OrderServiceError.invalid(problems + [OrderProblem(
                    path: "orderTypeIdentifier",
                    message: "\"\(identifier)\" is not an order type this service signs (\(orderTypes.keys.sorted().joined(separator: ", ")))")])
            }
            type = configured
        case let other?:
            throw OrderServiceError.invalid(problems + [OrderProblem(
                path: "orderTypeIdentifier", message: "must be a string, not \(other.typeName)")])
        }
        if let id = fields["orderIdentifier"], id.stringValue == nil {
            problems.append(OrderProblem(path: "orderIdentifier", message: "must be a string, not \(id.typeName)"))
        }
        guard problems.isEmpty else { throw OrderServiceError.invalid(problems) }

        var document = OrderDocument(fields: fields)
        document["orderTypeIdentifier"] = .string(type.identifier)
        if document["orderIdentifier"] == nil { document["orderIdentifier"] = .string(Random.identifier()) }
        if document["schemaVersion"] == nil { document["schemaVersion"] = .int(1) }
        if document["orderType"] == nil { document["orderType"] = .string("ecommerce") }
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string(webServiceURL)
        document = type.template.applyingDefaults(to: document)
        guard let id = document.orderIdentifier else { throw OrderServiceError.badRequest("orderIdentifier is missing") }
        if let problem = Identifier.problem(with: id) {
            throw OrderServiceError.invalid([OrderProblem(path: "orderIdentifier", message: problem)])
        }
        document["createdAt"] = .string(RFC3339.format(createdAt))
        document["updatedAt"] = document["createdAt"]
        return (type, document, assets)
    }

    /// Replaces an order with `body` (PUT): identifiers, token, service URL and creation time are kept.
    public func replace(type: String, id: String, body: JSONValue) async throws -> WrittenOrder {
        guard var fields = body.objectValue else { throw OrderServiceError.badRequest("the body must be a JSON object") }
        let newAssets = try fields.removeValue(forKey: "assets").map { try Self.decodeAssets($0) }
        return try await update(type: type, id: id) { [fields] _, assets in
            (OrderDocument(fields: fields), newAssets ?? assets)
        }
    }

    /// Changes an order with a JSON merge patch (PATCH, RFC 7396); `assets` in the patch merges into the
    /// order's files, a null removing one.
    public func patch(type: String, id: String, patch: JSONValue) async throws -> WrittenOrder {
        guard var changes = patch.objectValue else {
            throw OrderServiceError.badRequest("a merge patch must be a JSON object")
        }
        let assetChanges = changes.removeValue(forKey: "assets")
        var removed: Set<String> = []
        var added: [String: Data] = [:]
        if let assetChanges {
            guard let members = assetChanges.objectValue else {
                throw OrderServiceError.badRequest("assets must be an object of path to base64 data")
            }
            for (path, value) in members where value == .null { removed.insert(path) }
            added = try Self.decodeAssets(.object(members.filter { $0.value != .null }))
        }
        return try await update(type: type, id: id) { [changes, removed, added] current, assets in
            var merged = assets.filter { !removed.contains($0.key) }
            merged.merge(added) { $1 }
            return (OrderDocument(fields: current.json.merging(patch: .object(changes)).objectValue ?? [:]), merged)
        }
    }

    /// Reads, changes, validates, signs and commits, again from the read when another write won the race.
    ///
    /// Writes to one order on this instance take turns through a lock of their own. Across instances the commit
    /// decides: it lands only on the version this write read (compare-and-swap), and the write that lost starts
    /// again from the read after a short, random pause. Nothing is held in the database while signing: a write
    /// takes a connection only for each of its queries, so no number of merchant writes at once can take every
    /// connection and leave them waiting for one more.
    private func update(
        type: String, id: String,
        change: (OrderDocument, [String: Data]) throws -> (OrderDocument, [String: Data])
    ) async throws -> WrittenOrder {
        guard let orderType = orderTypes[type] else { throw OrderServiceError.orderNotFound }
        // Below device requests: a few at a time while devices are answered, on the write pool's threads.
        return try await priority.merchantWrite(waited: counters.merchantWriteWaited) {
            try await WritePool.shared.run {
                try await writes.withLock("\(type) \(id)") {
                    try await update(orderType, id: id, change: change)
                }
            }
        }
    }

    private func update(
        _ orderType: OrderType, id: String,
        change: (OrderDocument, [String: Data]) throws -> (OrderDocument, [String: Data])
    ) async throws -> WrittenOrder {
        let type = orderType.identifier
        for attempt in 0..<Self.maxWriteAttempts {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << min(attempt, 5))))) }
            guard let current = try await store.currentOrder(type: type, id: id) else {
                throw OrderServiceError.orderNotFound
            }
            let previous = current.order
            var (document, assets) = try change(previous.document, current.assets)
            var problems: [OrderProblem] = []
            // The merchant may resend the fields the service owns, but not change them.
            for field in ["orderTypeIdentifier", "orderIdentifier", "createdAt"] + Self.managedFields
            where field != "updatedAt" {
                if let sent = document[field], sent != previous.document[field] {
                    problems.append(OrderProblem(path: field, message: "is set by the service and cannot change"))
                }
                document[field] = previous.document[field]
            }
            guard problems.isEmpty else { throw OrderServiceError.invalid(problems) }
            document = orderType.template.applyingDefaults(to: document)
            // Each version's updatedAt is at least one second past the last: HTTP dates have one-second
            // resolution, so a device comparing If-Modified-Since must never see two versions in one second.
            let now = now()
            let updatedAt = Date(unixSeconds: max(now.unixSeconds, previous.updatedAt.unixSeconds + 1))
            document["updatedAt"] = .string(RFC3339.format(updatedAt))
            let package = try await build(orderType, document, assets)
            let write = OrderWrite(
                orderTypeIdentifier: type, orderIdentifier: id, authenticationToken: previous.authenticationToken,
                document: document, createdAt: previous.createdAt, updatedAt: updatedAt,
                assets: assets == current.assets ? nil : assets, package: package.stored)
            do {
                let ticket = cache?.ticket()
                let update = try await store.updateOrder(write, expectedVersion: previous.version, now: now)
                // Before answering, so a fetch after the answer finds this version here (see `FetchCache`).
                cache?.written(type: type, id: id, head: update.order.head, package: ByteBuffer(bytes: package.data),
                               ticket: ticket)
                return WrittenOrder(order: update.order, pushesQueued: update.pushesQueued, warnings: package.warnings)
            } catch StoreError.versionConflict {
                continue
            } catch StoreError.orderNotFound {
                throw OrderServiceError.orderNotFound
            }
        }
        throw OrderServiceError.writeConflict
    }

    // MARK: Reading orders

    /// The current order and how many devices are registered for it.
    public func order(type: String, id: String) async throws -> (order: StoredOrder, registrations: Int) {
        guard let order = try await store.order(type: type, id: id) else { throw OrderServiceError.orderNotFound }
        return (order, try await store.registrationCount(type: type, id: id))
    }

    /// The signed package of the order's current version, with the head it belongs to.
    public func package(type: String, id: String) async throws -> FetchedPackage {
        if let entry = cache?.entry(type: type, id: id) {
            counters.packageCacheHit()
            return FetchedPackage(head: entry.head, package: entry.package)
        }
        let ticket = cache?.ticket()
        counters.fetchReadStore()
        guard let fetched = try await store.orderForFetch(type: type, id: id) else { throw OrderServiceError.orderNotFound }
        return try await complete(fetched, type: type, id: id, ticket: ticket)
    }

    /// Orders newest first.
    public func orders(_ filter: OrderFilter, page: PageRequest) async throws -> Page<OrderSummary> {
        try await store.orders(filter, page: page)
    }

    /// The devices registered for an order, newest first.
    public func registrations(type: String, id: String) async throws -> [Registration] {
        guard try await store.orderHead(type: type, id: id) != nil else { throw OrderServiceError.orderNotFound }
        return try await store.registrations(RegistrationFilter(type: type, id: id), limit: Self.maxRegistrationsListed)
    }

    /// Every registration of one order is listed; an order followed by more devices than this is not a real one.
    static let maxRegistrationsListed = 100_000

    /// Registrations newest first, for admins.
    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await store.registrations(filter, limit: limit)
    }

    /// Outbox rows newest first.
    public func pushes(_ filter: PushFilter, page: PageRequest) async throws -> Page<PushRecord> {
        try await store.pushes(filter, page: page)
    }

    /// How many pushes the outbox holds in each status.
    public func pushCounts() async throws -> PushCounts {
        try await store.pushCounts()
    }

    /// What the device log entries add up to, in bytes as the total cap counts them.
    public func logBytes() async throws -> Int {
        try await store.logBytes()
    }

    /// Device log entries newest first.
    public func logs(_ filter: LogFilter, page: PageRequest) async throws -> Page<DeviceLogEntry> {
        try await store.logs(filter, page: page)
    }

    /// Counts for admins.
    public func stats() async throws -> StoreStats {
        try await store.stats(now: now())
    }

    /// Whether the database answers.
    public func isHealthy() async -> Bool {
        await store.isReachable()
    }

    // MARK: Devices

    /// Registers a device for an order's updates, given the order's authentication token and the device's push
    /// token (hex, stored in lower case).
    public func register(device: String, type: String, id: String, token: String?, pushToken: String?) async throws
        -> RegistrationOutcome {
        try await priority.device {
            try await registerDevice(device: device, type: type, id: id, token: token, pushToken: pushToken)
        }
    }

    private func registerDevice(device: String, type: String, id: String, token: String?, pushToken: String?)
        async throws -> RegistrationOutcome {
        _ = try await authorize(type: type, id: id, token: token)
        guard let pushToken, !pushToken.isEmpty, pushToken.count <= Self.maxPushTokenLength,
              pushToken.allSatisfy({ $0.isHexDigit }) else {
            throw OrderServiceError.invalidOrder("the body must be {\"pushToken\": \"<hex>\"}", problems: [
                OrderProblem(path: "pushToken", message: "must be the device's hex push token"),
            ])
        }
        return try await store.register(device: device, type: type, id: id, pushToken: pushToken.lowercased(),
                                        now: now())
    }

    /// The longest push token accepted: APNs' are 32 bytes (64 hex digits) today, with room to grow.
    static let maxPushTokenLength = 512

    /// Removes a device's registration, given the order's authentication token.
    public func unregister(device: String, type: String, id: String, token: String?) async throws {
        try await priority.device {
            _ = try await authorize(type: type, id: id, token: token)
            try await store.unregister(device: device, type: type, id: id)
        }
    }

    /// The device's orders of `type` changed since `tag`; nil when it is registered for none.
    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        try await priority.device { try await store.changedOrders(device: device, type: type, since: tag) }
    }

    /// The order's head and package for a device holding the order's authentication token.
    public func fetch(type: String, id: String, token: String?) async throws -> FetchedPackage {
        try await priority.device { try await fetchPackage(type: type, id: id, token: token) }
    }

    private func fetchPackage(type: String, id: String, token: String?) async throws -> FetchedPackage {
        if let entry = cache?.entry(type: type, id: id) {
            let head = try Self.check(token, entry.head)
            counters.packageCacheHit()
            return FetchedPackage(head: head, package: entry.package)
        }
        // Taken before the read: a version committed after it cannot be overwritten by what the read returns.
        let ticket = cache?.ticket()
        counters.fetchReadStore()
        let fetched = try await store.orderForFetch(type: type, id: id)
        let head = try Self.check(token, fetched?.head)
        return try await complete(FetchedOrder(head: head, package: fetched?.package), type: type, id: id, ticket: ticket)
    }

    /// Stores what a device sent to the log endpoint within `logLimits`, and reports what became of it. Never
    /// throws: Wallet stops pushing to a service whose log endpoint fails, so a store failure drops the messages
    /// (and says so in the report) instead.
    public func appendLogs(_ messages: [String], remoteAddress: String?) async -> DeviceLogReport {
        await priority.device { await storeLogs(messages, remoteAddress: remoteAddress) }
    }

    private func storeLogs(_ messages: [String], remoteAddress: String?) async -> DeviceLogReport {
        var report = DeviceLogReport()
        report.droppedOverRequestCap = max(0, messages.count - logLimits.maxEntriesPerRequest)
        let kept = messages.prefix(logLimits.maxEntriesPerRequest).map { message in
            guard message.utf8.count > logLimits.maxEntryBytes else { return message }
            report.truncated += 1
            return Self.prefix(of: message, bytes: logLimits.maxEntryBytes)
        }
        if !kept.isEmpty {
            do {
                let outcome = try await store.appendLogs(kept, remoteAddress: remoteAddress, now: now(),
                                                         maxBytes: logLimits.maxTotalBytes)
                report.stored = outcome.stored
                report.folded = outcome.folded
                report.evicted = outcome.evicted
            } catch {
                report.droppedStoreFailed = kept.count
            }
        }
        counters.deviceLogs(report)
        return report
    }

    /// The longest prefix of `text` that is whole characters and at most `bytes` UTF-8 bytes.
    static func prefix(of text: String, bytes: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            if used + size > bytes { break }
            used += size
            end = next
        }
        return String(text[..<end])
    }

    /// The order's head when `token` is its authentication token. Unknown orders and wrong tokens are refused
    /// alike, so a device cannot learn which orders exist.
    func authorize(type: String, id: String, token: String?) async throws -> OrderHead {
        try Self.check(token, try await store.orderHead(type: type, id: id))
    }

    static func check(_ token: String?, _ head: OrderHead?) throws -> OrderHead {
        guard let head else {
            // Compare anyway, so an unknown order takes as long to refuse as a wrong token.
            _ = ConstantTime.equals(token ?? "", String(repeating: "0", count: 64))
            throw OrderServiceError.unauthorized
        }
        guard let token, ConstantTime.equals(token, head.authenticationToken) else {
            throw OrderServiceError.unauthorized
        }
        return head
    }

    // MARK: Packages

    /// `fetched` with its package, and kept in the cache when `ticket` still holds. The store keeps a package's seal
    /// (`PackageSeal`), from which the package is assembled again without signing; a package is built, signed and
    /// stored now when none is stored for the version, or when its seal no longer fits (the template or the
    /// certificates changed since). A whole package stored instead of a seal is served as it is.
    private func complete(_ fetched: FetchedOrder, type: String, id: String, ticket: FetchCache.Ticket?) async throws
        -> FetchedPackage {
        let seal = fetched.package.flatMap(PackageSeal.init(encoded:))
        if let stored = fetched.package, seal == nil {
            counters.packageCacheHit()
            let package = ByteBuffer(bytes: stored)
            cache?.fill(type: type, id: id, head: fetched.head, package: package, ticket: ticket)
            return FetchedPackage(head: fetched.head, package: package)
        }
        guard let orderType = orderTypes[type], let current = try await store.currentOrder(type: type, id: id) else {
            throw OrderServiceError.orderNotFound
        }
        if let seal, current.order.version == fetched.head.version,
           let data = try await assemble(orderType, current.order.document, current.assets, seal) {
            counters.packageCacheHit()
            let package = ByteBuffer(bytes: data)
            cache?.fill(type: type, id: id, head: current.order.head, package: package, ticket: ticket)
            return FetchedPackage(head: current.order.head, package: package)
        }
        let built = try await build(orderType, current.order.document, current.assets)
        let package = ByteBuffer(bytes: built.data)
        if try await store.savePackage(type: type, id: id, version: current.order.version, data: built.stored) {
            cache?.fill(type: type, id: id, head: current.order.head, package: package, ticket: ticket)
        }
        return FetchedPackage(head: current.order.head, package: package)
    }

    /// The package `seal` was made for, assembled again on the write pool; nil when the seal no longer fits.
    private func assemble(_ type: OrderType, _ order: OrderDocument, _ assets: [String: Data], _ seal: PackageSeal)
        async throws -> Data? {
        try await packaging { try type.package(order, assets: assets, seal: seal) }
    }

    /// Builds and signs a package on the write pool, counting it.
    func build(_ type: OrderType, _ order: OrderDocument, _ assets: [String: Data]) async throws -> BuiltPackage {
        counters.packageBuilt()
        return try await packaging { try type.package(order, assets: assets) }
    }

    /// Runs packaging `work` on the write pool; package errors become service errors.
    private func packaging<Result: Sendable>(_ work: () throws -> Result) async throws -> Result {
        do {
            return try await WritePool.shared.run { try work() }
        } catch let error as PackageError {
            throw Self.serviceError(error)
        }
    }

    static func serviceError(_ error: PackageError) -> OrderServiceError {
        switch error {
        case .invalidOrder(let problems): .invalid(problems)
        case .invalidAsset(let path, let problem):
            .invalidOrder("the assets are not valid", problems: [OrderProblem(path: "assets.\(path)", message: problem)])
        case .tooLarge(let bytes, let limit): .packageTooLarge(bytes: bytes, limit: limit)
        case .template, .signingIdentity, .failed: .packagingFailed("\(error)")
        }
    }

    static func decodeAssets(_ value: JSONValue?) throws -> [String: Data] {
        guard let value else { return [:] }
        guard let members = value.objectValue else {
            throw OrderServiceError.badRequest("assets must be an object of path to base64 data")
        }
        var assets: [String: Data] = [:]
        var problems: [OrderProblem] = []
        for (path, encoded) in members.sorted(by: { $0.key < $1.key }) {
            guard let text = encoded.stringValue, let data = Data(base64Encoded: text) else {
                problems.append(OrderProblem(path: "assets.\(path)", message: "must be base64 text"))
                continue
            }
            if let problem = PackagePath.problem(with: path) {
                problems.append(OrderProblem(path: "assets.\(path)", message: problem))
                continue
            }
            assets[path] = data
        }
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the assets are not valid", problems: problems) }
        return assets
    }
}

/// An order the service wrote, how many devices it queued a push for, and what some devices will not show.
public struct WrittenOrder: Sendable {
    public let order: StoredOrder
    public let pushesQueued: Int
    /// Paths into order.json with what older devices miss (objects newer than iOS 16, …); empty when nothing.
    public let warnings: [OrderProblem]
}

/// An order's head with the signed package of that version, as the bytes a response sends.
public struct FetchedPackage: Sendable {
    public let head: OrderHead
    public let package: ByteBuffer
}

/// Unguessable identifiers and tokens from the system's secure random source.
public enum Random {
    private static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A new order identifier: 128 random bits.
    public static func identifier() -> String { hex(bytes: 16) }
    /// A new authentication token, or a key: 256 random bits.
    public static func token() -> String { hex(bytes: 32) }
}
