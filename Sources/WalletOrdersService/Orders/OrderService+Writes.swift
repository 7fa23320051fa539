import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// Creating, validating, replacing and patching orders.
extension OrderService {
    /// Creates an order from what a merchant sent: order.json fields and optional per-order files.
    public func create(_ input: OrderInput) async throws -> WrittenOrder {
        try await priority.merchantWrite(waited: counters.merchantWriteWaited) {
            try await WritePool.shared.run { try await createOnPool(input) }
        }
    }

    private func createOnPool(_ input: OrderInput) async throws -> WrittenOrder {
        let token = Random.token()
        let createdAt = Date(unixSeconds: now().unixSeconds)
        let (type, document, assets) = try newOrder(input, token: token, createdAt: createdAt)
        let id = try Self.identifier(of: document)
        let package = try await build(type, document, assets)
        do {
            let ticket = cache?.ticket()
            let order = try await store.createOrder(
                OrderWrite(
                    orderTypeIdentifier: type.identifier,
                    orderIdentifier: id,
                    authenticationToken: token,
                    document: document,
                    createdAt: createdAt,
                    updatedAt: createdAt,
                    assets: assets,
                    package: package.stored
                )
            )
            cache?.written(
                type: type.identifier,
                id: id,
                head: order.head,
                package: ByteBuffer(bytes: package.data),
                ticket: ticket
            )
            return WrittenOrder(order: order, pushesQueued: 0, warnings: package.warnings)
        } catch StoreError.orderExists {
            throw OrderServiceError.orderExists(type: type.identifier, id: id)
        }
    }

    /// The checks `create` runs on `input`, with nothing signed or stored: every problem that would refuse it, and
    /// the warnings it would draw. Whether the identifier is taken is not checked (that needs the store).
    public func validate(_ input: OrderInput) -> OrderValidation {
        do {
            // A placeholder token of the length the service makes: its value is never used.
            let (type, document, assets) = try newOrder(
                input,
                token: String(repeating: "0", count: 64),
                createdAt: Date(unixSeconds: now().unixSeconds)
            )
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
    private func newOrder(
        _ input: OrderInput,
        token: String,
        createdAt: Date
    ) throws
        -> (OrderType, OrderDocument, [String: Data])
    {
        let fields = input.fields
        let assets = input.assets ?? [:]
        var problems = Self.assetProblems(assets.keys)
        for field in Self.managedFields where fields[field] != nil {
            problems.append(OrderProblem(path: field, message: "is set by the service; leave it out"))
        }
        let type: OrderType
        switch fields["orderTypeIdentifier"] {
        case nil:
            guard orderTypes.count == 1, let only = orderTypes.values.first else {
                throw OrderServiceError.invalid(
                    problems + [
                        OrderProblem(
                            path: "orderTypeIdentifier",
                            message: "is required: this service signs more than one order type"
                        )
                    ]
                )
            }
            type = only
        case .string(let identifier)?:
            guard let configured = orderTypes[identifier] else {
                throw OrderServiceError.invalid(
                    problems + [
                        OrderProblem(
                            path: "orderTypeIdentifier",
                            message: "\"\(identifier)\" is not an order type this service signs (\(orderTypes.keys.sorted().joined(separator: ", ")))"
                        )
                    ]
                )
            }
            type = configured
        case let other?:
            throw OrderServiceError.invalid(
                problems + [
                    OrderProblem(
                        path: "orderTypeIdentifier",
                        message: "must be a string, not \(other.typeName)"
                    )
                ]
            )
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
        let id = try Self.identifier(of: document)
        if let problem = Identifier.problem(with: id) {
            throw OrderServiceError.invalid([OrderProblem(path: "orderIdentifier", message: problem)])
        }
        document["createdAt"] = .string(RFC3339.format(createdAt))
        document["updatedAt"] = document["createdAt"]
        return (type, document, assets)
    }

    /// The order identifier a document names; every path that makes one fills it in first.
    private static func identifier(of document: OrderDocument) throws -> String {
        guard let id = document.orderIdentifier else {
            throw OrderServiceError.invalid([OrderProblem(path: "orderIdentifier", message: "is missing")])
        }
        return id
    }

    /// Problems with the package paths of per-order files: each must be a path a package may hold.
    public static func assetProblems(_ paths: some Sequence<String>) -> [OrderProblem] {
        paths.sorted().compactMap { path in
            PackagePath.problem(with: path).map { OrderProblem(path: "assets.\(path)", message: $0) }
        }
    }

    /// Replaces an order with `input` (PUT): identifiers, token, service URL and creation time are kept, and so are
    /// its files when `input` names none.
    public func replace(type: String, id: String, with input: OrderInput) async throws -> WrittenOrder {
        if let assets = input.assets { try Self.checkAssets(assets.keys) }
        return try await update(type: type, id: id) { _, assets in
            (OrderDocument(fields: input.fields), input.assets ?? assets)
        }
    }

    /// Changes an order with a JSON merge patch (PATCH, RFC 7396); files are added, replaced and removed as the
    /// patch says.
    public func patch(type: String, id: String, _ patch: OrderPatch) async throws -> WrittenOrder {
        try Self.checkAssets(patch.assets.keys)
        return try await update(type: type, id: id) { current, assets in
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
        _ orderType: OrderType,
        id: String,
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
                orderTypeIdentifier: type,
                orderIdentifier: id,
                authenticationToken: previous.authenticationToken,
                document: document,
                createdAt: previous.createdAt,
                updatedAt: updatedAt,
                assets: assets == current.assets ? nil : assets,
                package: package.stored
            )
            do {
                let ticket = cache?.ticket()
                let update = try await store.updateOrder(write, expectedVersion: previous.version, now: now)
                // Before answering, so a fetch after the answer finds this version here (see `FetchCache`).
                cache?.written(
                    type: type,
                    id: id,
                    head: update.order.head,
                    package: ByteBuffer(bytes: package.data),
                    ticket: ticket
                )
                return WrittenOrder(order: update.order, pushesQueued: update.pushesQueued, warnings: package.warnings)
            } catch StoreError.versionConflict {
                continue
            } catch StoreError.orderNotFound {
                throw OrderServiceError.orderNotFound
            }
        }
        throw OrderServiceError.writeConflict
    }
}
