import Foundation
import WalletOrdersModel
import WalletOrdersStore

/// Importing a merchant's orders in bulk, idempotently by the merchant's own identifiers, and exporting them in the
/// form an import takes.
extension OrderService {
    /// What importing one order did.
    public enum ImportOutcome: Sendable {
        /// There was no such order of the merchant's; this is its first version.
        case created(WrittenOrder)
        /// The order has this content already; nothing was written.
        case unchanged(StoredOrder)
        /// The order had other content; this is its next version, with a push queued per registered device.
        case updated(WrittenOrder)

        public var result: ImportLineResult.Outcome {
            switch self {
            case .created: .created
            case .unchanged: .unchanged
            case .updated: .updated
            }
        }
    }

    /// How many lines of one import are under way at once: enough to keep every core signing (merchant writes run
    /// up to four per core, `DevicePriority`) with as many again waiting their turn behind a slow one.
    public static let importWindow = 8 * ProcessInfo.processInfo.activeProcessorCount

    /// Imports `merchant`'s order `input`, the body `create` takes but with its identifier required: created when
    /// the merchant has no order with that identifier; left alone when it has one with the same content (its
    /// document, the fields the service sets aside, and its files); otherwise replaced by it as a new version, with
    /// pushes queued as `replace` queues them. Files left out of `input` are none, as when creating.
    public func importOrder(_ input: OrderInput, for merchant: Merchant = .singleShop) async throws -> ImportOutcome {
        let (type, id) = try await identify(input, for: merchant, generatedID: nil)
        // What creating the order would store, to compare with what is stored and to replace it with.
        var fields = input.fields
        fields["orderTypeIdentifier"] = .string(type.identifier)
        fields["orderIdentifier"] = .string(id)
        if fields["schemaVersion"] == nil { fields["schemaVersion"] = .int(1) }
        if fields["orderType"] == nil { fields["orderType"] = .string("ecommerce") }
        let document = OrderDocument(fields: fields)
        let assets = input.assets ?? [:]
        // A new order (every line of a first import) is created at once, without reading it whole first. The order
        // may be created or updated by another write between the tries: then the other one fits.
        var exists = try await store.orders.orderHead(type: type.identifier, id: id) != nil
        for attempt in 1...3 {
            if exists {
                do {
                    switch try await update(
                        type: type.identifier,
                        id: id,
                        for: merchant,
                        author: .merchant(merchant.slug),
                        change: { _, _ in Revision(document: document, assets: assets) }
                    ) {
                    case .written(let written): return .updated(try await applyingWaitingEvents(written, merchant: merchant))
                    case .unchanged(let order): return .unchanged(order)
                    }
                } catch OrderServiceError.orderNotFound {
                    // None of this merchant's: create it.
                }
            }
            do {
                return .created(try await create(input, for: merchant))
            } catch OrderServiceError.orderExists where attempt < 3 {
                exists = true
            }
        }
        throw OrderServiceError.writeConflict
    }

    /// Imports the orders of `lines` for `merchant`, up to `window` at once, and hands `emit` each line's result in
    /// the order of the lines, as soon as it and those before it are in (several at once when several are).
    ///
    /// A line's problem is its result (`invalid`) and the import goes on. An error that is no line's fault (the
    /// store failing) ends it: the results before that line are emitted, then the error is thrown. Lines naming
    /// the same order are written one after the other, in their order.
    public func importOrders<Lines: AsyncSequence & Sendable>(
        _ lines: Lines,
        for merchant: Merchant = .singleShop,
        window capacity: Int = OrderService.importWindow,
        emit: ([ImportLineResult]) async throws -> Void
    ) async throws where Lines.Element == ImportLine {
        let window = ImportWindow<Result<ImportLineResult, any Error>>(capacity: capacity)
        let types = merchantOrderTypes(merchant)
        let single = types.count == 1 ? types.first : nil
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { window.close() }
                try await withThrowingDiscardingTaskGroup { workers in
                    for try await line in lines {
                        let key = Self.importKey(line, for: merchant, onlyType: single)
                        guard let index = await window.start(key: key) else { return }
                        workers.addTask {
                            do {
                                window.finish(index, key: key, .success(try await importLine(line, for: merchant)))
                            } catch {
                                window.finish(index, key: key, .failure(error))
                            }
                        }
                    }
                }
            }
            while let values = await window.next() {
                var results: [ImportLineResult] = []
                for value in values {
                    switch value {
                    case .success(let result):
                        results.append(result)
                    case .failure(let error):
                        if !results.isEmpty { try await emit(results) }
                        window.cancel()
                        throw error
                    }
                }
                try await emit(results)
            }
            // The reader's error (the body could not be read), if it had one.
            try await group.waitForAll()
        }
    }

    /// The order types `merchant` may use.
    private func merchantOrderTypes(_ merchant: Merchant) -> [String] {
        merchant.orderTypes.isEmpty ? Array(orderTypes.keys) : orderTypes.keys.filter { merchant.orderTypes.contains($0) }
    }

    /// What keeps two lines naming one order apart: its type (`onlyType` when it names none) and Wallet's
    /// identifier; nil for a line that names no order.
    private static func importKey(_ line: ImportLine, for merchant: Merchant, onlyType: String?) -> String? {
        guard case .order(let input) = line.content, let id = input.fields["orderIdentifier"]?.stringValue else {
            return nil
        }
        return (input.fields["orderTypeIdentifier"]?.stringValue ?? onlyType ?? "") + " " + merchant.walletIdentifier(id)
    }

    /// One line's result; throws only what is no line's fault.
    private func importLine(_ line: ImportLine, for merchant: Merchant) async throws -> ImportLineResult {
        switch line.content {
        case .unreadable(let id, let problems):
            return ImportLineResult(
                line: line.number,
                orderIdentifier: id.map(merchant.ownIdentifier),
                result: .invalid,
                problems: problems
            )
        case .order(let input):
            let id = input.fields["orderIdentifier"]?.stringValue.map(merchant.ownIdentifier)
            do {
                return ImportLineResult(
                    line: line.number,
                    orderIdentifier: id,
                    result: try await importOrder(input, for: merchant).result
                )
            } catch let error as OrderServiceError {
                guard let problems = Self.importProblems(error) else { throw error }
                return ImportLineResult(line: line.number, orderIdentifier: id, result: .invalid, problems: problems)
            }
        }
    }

    /// A refusal as the problems of the line it refuses; nil for an error that is not the line's.
    static func importProblems(_ error: OrderServiceError) -> [OrderProblem]? {
        switch error {
        case .invalidOrder(let message, let problems):
            problems.isEmpty ? [OrderProblem(path: "", message: message)] : problems
        case .orderExists:
            [OrderProblem(path: "orderIdentifier", message: error.description)]
        case .packageTooLarge, .limitReached, .writeConflict, .orderNotFound:
            [OrderProblem(path: "", message: error.description)]
        case .packagingFailed, .unauthorized, .tooManyDevices, .linkNotFound, .tooManyLinks, .webhookNotFound,
            .tooManyWebhooks, .webhookDisabled, .notPartnersToChange, .merchantSuspended:
            nil
        }
    }

    /// Hands `emit` every order of `merchant` (of `type`, when given) newest first, by when each was created, in
    /// the form `importOrder` takes: order.json without the fields the service sets, with the merchant's own
    /// identifier and the order's files. Reads the store a page at a time, and one order at a time within it.
    public func exportOrders(
        type: String? = nil,
        for merchant: Merchant = .singleShop,
        pageSize: Int = 200,
        emit: (OrderInput) async throws -> Void
    ) async throws {
        var cursor: Int64?
        repeat {
            let page = try await orders(OrderFilter(type: type), page: PageRequest(limit: pageSize, before: cursor), for: merchant)
            for summary in page.records {
                // An order is never deleted, but it is read again here: another merchant's is never exported.
                guard let current = try await store.orders.currentOrder(type: summary.orderTypeIdentifier, id: summary.orderIdentifier),
                    current.order.merchantID == merchant.id
                else { continue }
                var fields = current.order.document.fields
                for field in Self.managedFields { fields.removeValue(forKey: field) }
                fields["orderIdentifier"] = .string(merchant.ownIdentifier(current.order.orderIdentifier))
                try await emit(OrderInput(fields: fields, assets: current.assets))
            }
            cursor = page.next
        } while cursor != nil
    }
}
