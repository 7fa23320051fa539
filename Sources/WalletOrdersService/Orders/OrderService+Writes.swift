import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// Creating, validating, replacing and patching orders, each for one merchant.
extension OrderService {
    /// Creates an order for `merchant` from what it sent: order.json fields and optional per-order files.
    public func create(_ input: OrderInput, for merchant: Merchant = .singleShop) async throws -> WrittenOrder {
        try await create(input, for: merchant, author: .merchant(merchant.slug))
    }

    /// Creates an order for `merchant` as `author` writes it, created at `createdAt` (now when nil).
    func create(
        _ input: OrderInput,
        for merchant: Merchant,
        author: VersionAuthor,
        createdAt: Date? = nil
    ) async throws
        -> WrittenOrder
    {
        let written = try await priority.merchantWrite(waited: counters.merchantWriteWaited) {
            try await WritePool.shared.run { try await createOnPool(input, for: merchant, author: author, createdAt: createdAt) }
        }
        return try await applyingWaitingEvents(written, merchant: merchant)
    }

    private func createOnPool(
        _ input: OrderInput,
        for merchant: Merchant,
        author: VersionAuthor,
        createdAt: Date?
    ) async throws
        -> WrittenOrder
    {
        let token = Random.token()
        let createdAt = Date(unixSeconds: (createdAt ?? now()).unixSeconds)
        let new = try await newOrder(input, for: merchant, token: token, createdAt: createdAt)
        let (type, id) = (new.type.identifier, new.id)
        let package = try await build(new.type, new.template, new.document, new.assets)
        let parcels = Self.parcels(in: new.document)
        do {
            let ticket = cache?.ticket()
            var write = OrderWrite(
                orderTypeIdentifier: type,
                orderIdentifier: id,
                authenticationToken: token,
                document: new.document,
                createdAt: createdAt,
                updatedAt: createdAt,
                assets: new.assets,
                package: package.stored,
                merchantID: merchant.id,
                limits: merchant.limits,
                author: author,
                tracking: parcels.isEmpty ? nil : parcels
            )
            // A new order tells the merchant's endpoints; no device can be registered for it yet.
            write.effects = WriteEffects(
                webhooks: [.orderCreated(status: write.status, downloadURL: ownLinkURL(type: type, id: id, token: token))]
            )
            let order = try await store.orders.createOrder(write)
            cache?.written(type: type, id: id, head: order.head, package: ByteBuffer(bytes: package.data), ticket: ticket)
            return WrittenOrder(
                order: order,
                pushesQueued: 0,
                warnings: package.warnings,
                addedTrackingNumbers: Set(parcels.map(\.trackingNumber)).sorted()
            )
        } catch StoreError.orderExists {
            throw OrderServiceError.orderExists(type: type, id: id)
        } catch StoreError.quotaExceeded(let quota) {
            throw OrderServiceError.limitReached(quota, merchant: merchant)
        }
    }

    /// Replaces `merchant`'s order with `input` (PUT): identifiers, token, service URL and creation time are kept,
    /// and so are its files when `input` names none. Another merchant's order (the default merchant naming
    /// `acme:1001`) is refused from its identifier before anything is read, as a missing one is, whether it exists
    /// or not: reading it first would take longer when it exists.
    public func replace(
        type: String,
        id: String,
        with input: OrderInput,
        for merchant: Merchant = .singleShop
    )
        async throws -> WrittenOrder
    {
        if let assets = input.assets { try Self.checkAssets(assets.keys) }
        return try await update(type: type, id: try await owned(id, by: merchant), for: merchant) { _, assets in
            (OrderDocument(fields: input.fields), input.assets ?? assets)
        }
    }

    /// Changes `merchant`'s order with a JSON merge patch (PATCH, RFC 7396); files are added, replaced and removed
    /// as the patch says. Another merchant's order is refused as `replace` refuses it.
    public func patch(
        type: String,
        id: String,
        _ patch: OrderPatch,
        for merchant: Merchant = .singleShop
    ) async throws
        -> WrittenOrder
    {
        try Self.checkAssets(patch.assets.keys)
        return try await update(type: type, id: try await owned(id, by: merchant), for: merchant) { current, assets in
            var merged = assets.filter { !patch.removedAssets.contains($0.key) }
            merged.merge(patch.assets) { $1 }
            return (OrderDocument(fields: current.json.merging(patch: .object(patch.changes)).objectValue ?? [:]), merged)
        }
    }

    private static func checkAssets(_ paths: some Sequence<String>) throws {
        let problems = assetProblems(paths)
        guard problems.isEmpty else { throw OrderServiceError.invalidOrder("the assets are not valid", problems: problems) }
    }

    /// Reads, changes, validates, signs and commits, again from the read when another write won the race.
    ///
    /// Writes to one order on this instance take turns through a lock of their own. Across instances the commit
    /// decides: it lands only on the version this write read (compare-and-swap), and the write that lost starts
    /// again from the read after a short, random pause. Nothing is held in the database while signing: a write
    /// takes a connection only for each of its queries, so no number of merchant writes at once can take every
    /// connection and leave them waiting for one more.
    private func update(
        type: String,
        id: String,
        for merchant: Merchant,
        change: (OrderDocument, [String: Data]) throws -> (OrderDocument, [String: Data])
    ) async throws -> WrittenOrder {
        let outcome = try await update(type: type, id: id, for: merchant, author: .merchant(merchant.slug)) {
            let (document, assets) = try change($0, $1)
            return Revision(document: document, assets: assets)
        }
        switch outcome {
        case .written(let written): return try await applyingWaitingEvents(written, merchant: merchant)
        case .unchanged(let order): return WrittenOrder(order: order, pushesQueued: 0, warnings: [])
        }
    }

    /// What a change makes of an order: its document and files, for a change made by tracking events when the
    /// last event applied to each fulfillment it moved happened (by `fulfillmentIdentifier`), and the webhook events
    /// the version causes beyond `order.updated`, given its number.
    struct Revision {
        var document: OrderDocument
        var assets: [String: Data]
        var eventTimes: [String: Date] = [:]
        var webhooks: (_ version: Int) -> [WebhookNotice] = { _ in [] }
    }

    /// What an update did: wrote the next version, or, for a change that changes nothing, left the order as it was.
    enum UpdateOutcome {
        case written(WrittenOrder)
        case unchanged(StoredOrder)
    }

    /// `update` of every writer (merchants' PUT and PATCH, partners, tracking events, imports). It writes nothing (no
    /// version, no pushes, no webhooks, no signature) when the change leaves the order's document, `updatedAt`
    /// aside, and its files as they are: Wallet would fetch a package that did not change, which Apple's device logs
    /// call an error of the web service. Decided here, once, for every writer.
    func update(
        type: String,
        id: String,
        for merchant: Merchant,
        author: VersionAuthor,
        change: (OrderDocument, [String: Data]) async throws -> Revision
    ) async throws -> UpdateOutcome {
        guard let orderType = orderTypes[type] else { throw OrderServiceError.orderNotFound }
        // Below device requests: a few at a time while devices are answered, on the write pool's threads.
        return try await priority.merchantWrite(waited: counters.merchantWriteWaited) {
            try await WritePool.shared.run {
                try await writes.withLock("\(type) \(id)") {
                    try await update(
                        orderType,
                        id: id,
                        for: merchant,
                        author: author,
                        change: change
                    )
                }
            }
        }
    }

    private func update(
        _ orderType: OrderType,
        id: String,
        for merchant: Merchant,
        author: VersionAuthor,
        change: (OrderDocument, [String: Data]) async throws -> Revision
    ) async throws -> UpdateOutcome {
        let type = orderType.identifier
        for attempt in 0..<Self.maxWriteAttempts {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << min(attempt, 5))))) }
            // Another merchant's order is refused exactly as a missing one is.
            guard let current = try await store.orders.currentOrder(type: type, id: id), current.order.merchantID == merchant.id
            else { throw OrderServiceError.orderNotFound }
            let previous = current.order
            let revision = try await change(previous.document, current.assets)
            var (document, assets) = (revision.document, revision.assets)
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
            let template = try await merchants.template(for: merchant.id, of: orderType)
            document = Self.completed(document, by: template)
            if assets == current.assets {
                var same = document
                same["updatedAt"] = previous.document["updatedAt"]
                if same == previous.document { return .unchanged(previous) }
            }
            // Each version's updatedAt is at least one second past the last: HTTP dates have one-second
            // resolution, so a device comparing If-Modified-Since must never see two versions in one second.
            let now = now()
            let updatedAt = Date(unixSeconds: max(now.unixSeconds, previous.updatedAt.unixSeconds + 1))
            document["updatedAt"] = .string(RFC3339.format(updatedAt))
            let package = try await build(orderType, template, document, assets)
            let parcelsBefore = Self.parcels(in: previous.document, before: previous.document)
            let parcels = Self.parcels(in: document, eventTimes: revision.eventTimes, before: previous.document)
            var write = OrderWrite(
                orderTypeIdentifier: type,
                orderIdentifier: id,
                authenticationToken: previous.authenticationToken,
                document: document,
                createdAt: previous.createdAt,
                updatedAt: updatedAt,
                assets: assets == current.assets ? nil : assets,
                package: package.stored,
                merchantID: merchant.id,
                limits: merchant.limits,
                author: author,
                tracking: parcels == parcelsBefore ? nil : parcels,
                changes: previous.document.json.changes(
                    to: document.json,
                    ignoring: ["updatedAt"],
                    limit: OrderVersion.maxChanges,
                    maxPathBytes: OrderVersion.maxPathBytes,
                    maxValueBytes: OrderVersion.maxValueBytes
                )
            )
            // What a new version causes: every registered device is told, and so are the merchant's endpoints.
            write.effects = WriteEffects(
                pushRegisteredDevices: true,
                webhooks: [
                    .orderUpdated(
                        version: previous.version + 1,
                        status: write.status,
                        downloadURL: ownLinkURL(type: type, id: id, token: previous.authenticationToken)
                    )
                ] + revision.webhooks(previous.version + 1)
            )
            do {
                let ticket = cache?.ticket()
                let update = try await store.orders.updateOrder(write, expectedVersion: previous.version)
                // Before answering, so a fetch after the answer finds this version here (see `FetchCache`).
                cache?.written(
                    type: type,
                    id: id,
                    head: update.order.head,
                    package: ByteBuffer(bytes: package.data),
                    ticket: ticket
                )
                let numbersBefore = Set(parcelsBefore.map(\.trackingNumber))
                return .written(
                    WrittenOrder(
                        order: update.order,
                        pushesQueued: update.pushesQueued,
                        warnings: package.warnings,
                        addedTrackingNumbers: Set(parcels.map(\.trackingNumber)).subtracting(numbersBefore).sorted()
                    )
                )
            } catch StoreError.versionConflict {
                continue
            } catch StoreError.orderNotFound {
                throw OrderServiceError.orderNotFound
            } catch StoreError.quotaExceeded(let quota) {
                throw OrderServiceError.limitReached(quota, merchant: merchant)
            }
        }
        throw OrderServiceError.writeConflict
    }
}
