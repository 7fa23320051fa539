import Foundation
import Synchronization
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTracking

/// Tracking events: what a carrier said about a parcel, turned into new versions of the orders whose fulfillments
/// follow it.
extension OrderService {
    /// The most events one request may carry.
    public static let maxTrackingEventsPerRequest = 1_000
    /// The most events one sender may have waiting: pending for tracking numbers no order holds, or received and
    /// not settled yet. Counted in the store, so that it bounds what is kept.
    public static let maxPendingTrackingEvents = 100_000
    /// How long events are kept: duplicates are recognised, and pending events wait, this long.
    public static let trackingEventRetention: TimeInterval = 14 * 86_400
    /// How many orders one request's events change at once.
    static let trackingWidth = 4

    /// Takes `events` from `sender` (each decoded, or the problems that kept it from decoding) and answers what
    /// became of each, in order. Each event is kept first, so that a second one with its id is a duplicate; then the
    /// events about each order are applied together, in the order they happened, as one new version (one push per
    /// device); an event older than what the fulfillment shows is stale; one whose tracking number no order of the
    /// sender's merchants holds waits for one, up to `maxPendingTrackingEvents`. An event whose instants fall
    /// outside the windows `TrackingEvent.instantProblems(now:at:)` checks is invalid, and neither kept nor applied;
    /// so is one refused (past the bound, or making an order invalid): it is forgotten, and sent again it is new.
    public func track(
        _ events: [Result<TrackingEvent, TrackingEventProblems>],
        from sender: TrackingSender
    ) async throws -> [TrackingEventResult] {
        try await requireActiveMerchant(sender)
        let now = now()
        var results = [TrackingEventResult?](repeating: nil, count: events.count)
        var fresh: [(index: Int, event: TrackingEvent)] = []
        var ids = Set<String>()
        for (index, decoded) in events.enumerated() {
            switch decoded {
            case .failure(let failure):
                results[index] = TrackingEventResult(id: nil, result: .invalid, problems: failure.problems)
            case .success(let event):
                // Checked here too, not only where the API decodes: a provider's webhook hands over events of its own.
                let outside = event.instantProblems(now: now)
                if !outside.isEmpty {
                    results[index] = TrackingEventResult(id: event.id, result: .invalid, problems: outside)
                } else if !ids.insert(event.id).inserted {
                    results[index] = TrackingEventResult(id: event.id, result: .duplicate)
                } else {
                    fresh.append((index, event))
                }
            }
        }
        let records = try fresh.map { try Self.record($0.event, from: sender) }
        let states = try await store.tracking.receiveTrackingEvents(records)
        var taken: [(index: Int, event: TrackingEvent)] = []
        for (sent, state) in zip(fresh, states) {
            // A `received` event was taken before by a request that stopped before it said what became of it.
            if let state, state != .received {
                results[sent.index] = TrackingEventResult(id: sent.event.id, result: .duplicate)
            } else {
                taken.append(sent)
            }
        }
        let outcomes = try await apply(taken.map(\.event), from: sender, forgettingRefused: true)
        for (sent, outcome) in zip(taken, outcomes) { results[sent.index] = outcome }
        return results.map { $0 ?? TrackingEventResult(id: nil, result: .invalid) }
    }

    /// Refuses a partner all of whose merchants are suspended: nothing it sends may change an order. (A merchant's
    /// own key is refused before it gets here.) A partner with some merchants active sends on: its events about a
    /// suspended merchant's orders are refused one by one (see `apply`).
    private func requireActiveMerchant(_ sender: TrackingSender) async throws {
        guard case .partner(let partner) = sender else { return }
        var suspended: String?
        for id in partner.merchantIDs {
            guard let merchant = try await merchants.merchant(id: id) else { continue }
            if merchant.status == .active { return }
            suspended = suspended ?? merchant.slug
        }
        throw OrderServiceError.merchantSuspended(suspended ?? "")
    }

    /// Applies events kept before, from `sources`, about `numbers`: those that waited for an order to hold them,
    /// and any a stopped request left unsettled. After a merchant's write that gave a fulfillment a tracking number.
    func applyWaitingEvents(trackingNumbers numbers: [String], merchant: Merchant) async throws {
        var senders: [String: TrackingSender] = [:]
        for sender in [TrackingSender.merchant(merchant)] + (try await merchants.partners(of: merchant.id)).map(TrackingSender.partner) {
            senders[sender.source] = sender
        }
        let waiting = try await store.tracking.waitingTrackingEvents(trackingNumbers: numbers, sources: Array(senders.keys))
        let decoder = JSONDecoder()
        let now = now()
        var usable: [String: [TrackingEvent]] = [:]
        var unusable: [(source: String, id: String, state: TrackingEventState)] = []
        for record in waiting where senders[record.source] != nil {
            // A body kept before instants were checked may name any time, and one that cannot be read never will:
            // either is settled as stale (nothing it says can still change an order; a state of its own would need
            // both engines' schemas changed), before anything is applied, so that no later write reads it again.
            if let event = try? decoder.decode(TrackingEvent.self, from: record.body), event.instantProblems(now: now).isEmpty {
                usable[record.source, default: []].append(event)
            } else {
                unusable.append((record.source, record.id, .stale))
            }
        }
        try await store.tracking.settleTrackingEvents(unusable)
        for (source, events) in usable {
            guard let sender = senders[source] else { continue }
            _ = try await apply(events, from: sender, forgettingRefused: false)
        }
    }

    /// `written`, after the events waiting for the tracking numbers it added were applied. Those events are applied
    /// as well as they can be: one that cannot be now is tried again with the next write that adds its number.
    func applyingWaitingEvents(_ written: WrittenOrder, merchant: Merchant) async throws -> WrittenOrder {
        guard !written.addedTrackingNumbers.isEmpty else { return written }
        try? await applyWaitingEvents(trackingNumbers: written.addedTrackingNumbers, merchant: merchant)
        return written
    }

    /// Applies `events` (kept already, as `received` or `pending`) from `sender`, records what became of each, and
    /// answers it. Events refused are forgotten when `forgettingRefused` (a sender's request: it is told), and left
    /// as they were otherwise (events that waited, tried again with the next write that adds their number).
    private func apply(
        _ events: [TrackingEvent],
        from sender: TrackingSender,
        forgettingRefused: Bool
    ) async throws -> [TrackingEventResult] {
        guard !events.isEmpty else { return [] }
        let numbers = Array(Set(events.map(\.trackingNumber)))
        let tracked = try await store.tracking.trackedFulfillments(trackingNumbers: numbers, merchantIDs: sender.merchantIDs)
        var byNumber: [String: [TrackedFulfillment]] = [:]
        for fulfillment in tracked { byNumber[fulfillment.parcel.trackingNumber, default: []].append(fulfillment) }
        // A suspended merchant's orders are changed by no one but an operator until it is resumed.
        var suspended: [Int64: String] = [:]
        for id in Set(tracked.map(\.merchantID)) {
            if let merchant = try await merchants.merchant(id: id), merchant.status != .active { suspended[id] = merchant.slug }
        }
        var byOrder: [OrderKey: [Int]] = [:]
        var held: [Int: String] = [:]
        for (index, event) in events.enumerated() {
            for fulfillment in byNumber[event.trackingNumber] ?? [] where event.matches(carrier: fulfillment.parcel.carrier) {
                if let slug = suspended[fulfillment.merchantID] {
                    held[index] = slug
                    continue
                }
                let key = OrderKey(type: fulfillment.orderTypeIdentifier, id: fulfillment.orderIdentifier, merchantID: fulfillment.merchantID)
                if byOrder[key]?.last != index { byOrder[key, default: []].append(index) }
            }
        }
        var outcomes = [EventOutcome](repeating: .pending, count: events.count)
        var matched = Set<Int>()
        for indexes in byOrder.values { matched.formUnion(indexes) }
        for index in matched { outcomes[index] = .stale }
        for (index, slug) in held where !matched.contains(index) {
            outcomes[index] = .refused([
                OrderProblem(path: "trackingNumber", message: OrderServiceError.merchantSuspended(slug).description)
            ])
        }
        // Orders a few at a time: each is read, changed, signed and committed as a merchant's write is.
        var orders = byOrder.sorted { $0.key.id < $1.key.id }[...]
        try await withThrowingTaskGroup(of: (OrderKey, OrderApplication).self) { group in
            func next() -> Bool {
                guard let (key, indexes) = orders.popFirst() else { return false }
                group.addTask { (key, try await self.apply(indexes.map { ($0, events[$0]) }, to: key, from: sender)) }
                return true
            }
            for _ in 0..<Self.trackingWidth where next() {}
            while let (key, application) = try await group.next() {
                for index in application.applied {
                    outcomes[index].apply(order: application.changed ? key : nil)
                }
                for (index, problems) in application.refused { outcomes[index] = .refused(problems) }
                _ = next()
            }
        }
        // Events with nowhere to go wait, up to a bound per sender on what the store keeps waiting: these events are
        // among it (each is `received` or `pending` now), the sender's others take room first.
        let pending = outcomes.indices.filter { outcomes[$0] == .pending }
        if !pending.isEmpty {
            let others = max(0, try await store.tracking.waitingTrackingEventCount(source: sender.source) - events.count)
            for index in pending.dropFirst(max(0, Self.maxPendingTrackingEvents - others)) {
                outcomes[index] = .refused([
                    OrderProblem(
                        path: "trackingNumber",
                        message: "no order holds it, and \(Self.maxPendingTrackingEvents) events wait already for "
                            + "tracking numbers no order holds; send it again once an order holds it"
                    )
                ])
            }
        }
        var settled: [(source: String, id: String, state: TrackingEventState)] = []
        var refused: [(source: String, id: String)] = []
        for (event, outcome) in zip(events, outcomes) {
            switch outcome {
            case .applied: settled.append((sender.source, event.id, .applied))
            case .stale: settled.append((sender.source, event.id, .stale))
            case .pending: settled.append((sender.source, event.id, .pending))
            case .refused: refused.append((sender.source, event.id))
            }
        }
        try await store.tracking.settleTrackingEvents(settled)
        if forgettingRefused { try await store.tracking.forgetTrackingEvents(refused) }
        var names: [Int64: Merchant] = [:]
        for merchantID in Set(byOrder.keys.map(\.merchantID)) { names[merchantID] = try await merchants.merchant(id: merchantID) }
        return zip(events, outcomes).map { event, outcome in
            switch outcome {
            case .applied(let keys):
                let orders = keys.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.compactMap { key -> TrackedOrder? in
                    guard let merchant = names[key.merchantID] else { return nil }
                    return TrackedOrder(
                        merchant: merchant.slug,
                        orderTypeIdentifier: key.type,
                        orderIdentifier: sender.identifier(key.id, of: merchant)
                    )
                }
                return TrackingEventResult(id: event.id, result: .applied, orders: orders)
            case .stale: return TrackingEventResult(id: event.id, result: .stale)
            case .pending: return TrackingEventResult(id: event.id, result: .pending)
            case .refused(let problems): return TrackingEventResult(id: event.id, result: .invalid, problems: problems)
            }
        }
    }

    /// Applies events (with their indexes among the request's) to one order, as one new version when they change it.
    private func apply(
        _ events: [(index: Int, event: TrackingEvent)],
        to key: OrderKey,
        from sender: TrackingSender
    ) async throws -> OrderApplication {
        guard let merchant = try await merchants.merchant(id: key.merchantID) else { return OrderApplication() }
        let ordered = events.sorted { ($0.event.occurredAt, $0.index) < ($1.event.occurredAt, $1.index) }
        let applied = Mutex(Set<Int>())
        do {
            let outcome = try await update(
                type: key.type,
                id: key.id,
                for: merchant,
                author: sender.author
            ) { document, assets in
                // Read again on every attempt, after the order: a write that moved a parcel on since moved the order's
                // version on too, and this attempt's commit then fails and reads again.
                let parcels = try await store.tracking.trackedParcels(type: key.type, id: key.id)
                var times: [String: Date] = [:]
                var took = Set<Int>()
                let changed = document.changingFulfillments { fulfillment in
                    guard let identifier = fulfillment.identifier, let number = fulfillment.trackingNumber else { return }
                    // A time no event could have now was kept before instants were checked: it holds nothing back.
                    var last = parcels.first { $0.fulfillmentIdentifier == identifier && $0.trackingNumber == number }?
                        .lastEventAt.flatMap { TrackingEvent.isPlausibleOccurrence($0, now: now()) ? $0 : nil }
                    for (index, event) in ordered
                    where event.trackingNumber == number && event.matches(carrier: fulfillment.carrier) {
                        if let last, event.occurredAt < last { continue }
                        fulfillment = event.applied(to: fulfillment)
                        last = event.occurredAt
                        took.insert(index)
                        times[identifier] = event.occurredAt
                    }
                }
                applied.withLock { $0 = took }
                return Revision(document: changed, assets: assets, eventTimes: times)
            }
            let changed = if case .written = outcome { true } else { false }
            return OrderApplication(applied: applied.withLock { $0 }, changed: changed)
        } catch OrderServiceError.orderNotFound {
            return OrderApplication()
        } catch OrderServiceError.invalidOrder(let message, let problems) {
            let refused = [OrderProblem(path: "", message: "the order it moves would not be valid: \(message)")] + problems
            return OrderApplication(refused: events.map { ($0.index, refused) })
        } catch OrderServiceError.limitReached(let quota, let merchant) {
            // The order's merchant stores all its limit allows: the version these events would make is not written.
            let refused = [OrderProblem(path: "", message: OrderServiceError.limitReached(quota, merchant: merchant).description)]
            return OrderApplication(refused: events.map { ($0.index, refused) })
        }
    }

    /// How the store keeps `event` from `sender`.
    private static func record(_ event: TrackingEvent, from sender: TrackingSender) throws -> TrackingEventRecord {
        TrackingEventRecord(
            source: sender.source,
            id: event.id,
            trackingNumber: event.trackingNumber,
            body: try JSONEncoder().encode(event)
        )
    }
}

/// An order tracking events move.
private struct OrderKey: Hashable, Sendable {
    let type: String
    let id: String
    let merchantID: Int64
}

/// What applying events to one order did: the events it applied, whether that made a new version, and the events
/// that would have made the order invalid.
private struct OrderApplication: Sendable {
    var applied: Set<Int> = []
    var changed = false
    var refused: [(Int, [OrderProblem])] = []
}

/// What became of one event so far.
private enum EventOutcome: Equatable {
    case applied(Set<OrderKey>)
    case stale
    case pending
    case refused([OrderProblem])

    /// The event was applied to an order, which changed (`order`) or showed it already (nil).
    mutating func apply(order: OrderKey?) {
        var orders: Set<OrderKey> = []
        if case .applied(let before) = self { orders = before }
        if let order { orders.insert(order) }
        self = .applied(orders)
    }
}

/// The parcels an order's fulfillments follow.
extension OrderService {
    /// The parcels `document`'s fulfillments follow: those with an identifier and a tracking number, with the time
    /// of the last event applied to each from `eventTimes` (by `fulfillmentIdentifier`; nil keeps the stored one)
    /// and whether each is in transit. Against the version `before` it (nil for a new order), each says whether this
    /// version is news of it: a carrier event applied to it, or any change to its fulfillment (a new tracking
    /// number, a status or description a shop, a partner or the merchant wrote, setting off again). News ends a stall
    /// found before (`OrderService+Stalls`). A version against itself is news of nothing.
    static func parcels(in document: OrderDocument, eventTimes: [String: Date] = [:], before: OrderDocument? = nil) -> [TrackedParcel] {
        var previous: [String: FulfillmentView] = [:]
        for fulfillment in before?.fulfillmentViews ?? [] {
            guard let identifier = fulfillment.identifier, previous[identifier] == nil else { continue }
            previous[identifier] = fulfillment
        }
        var seen = Set<String>()
        return document.fulfillmentViews.compactMap { fulfillment -> TrackedParcel? in
            guard let identifier = fulfillment.identifier, let number = fulfillment.trackingNumber, !number.isEmpty,
                seen.insert(identifier).inserted
            else { return nil }
            return TrackedParcel(
                fulfillmentIdentifier: identifier,
                trackingNumber: number,
                carrier: fulfillment.carrier,
                lastEventAt: eventTimes[identifier],
                inTransit: fulfillment.isInTransit,
                isNews: previous[identifier] != fulfillment || eventTimes[identifier] != nil
            )
        }
    }
}
