import WalletOrdersModel

/// What became of one tracking event, in the order the events were sent.
public struct TrackingEventResult: Sendable, Equatable, Encodable {
    public enum Outcome: String, Sendable, Encodable {
        /// It moved the orders named (none when they showed it already).
        case applied
        /// The sender sent an event with this id before.
        case duplicate
        /// Every order it is about shows something that happened later.
        case stale
        /// No order holds its tracking number yet: it is kept, and applied when one does.
        case pending
        /// It was not taken; `problems` says why.
        case invalid
    }

    /// The event's id, when it had one.
    public let id: String?
    public let result: Outcome
    /// The orders it changed.
    public let orders: [TrackedOrder]
    public let problems: [OrderProblem]

    init(id: String?, result: Outcome, orders: [TrackedOrder] = [], problems: [OrderProblem] = []) {
        self.id = id
        self.result = result
        self.orders = orders
        self.problems = problems
    }

    private enum CodingKeys: String, CodingKey {
        case id, result, orders, problems
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(result, forKey: .result)
        if result == .applied { try container.encode(orders, forKey: .orders) }
        if !problems.isEmpty { try container.encode(problems, forKey: .problems) }
    }
}

/// An order a tracking event changed, as its sender names it.
public struct TrackedOrder: Sendable, Hashable, Encodable {
    /// The merchant's slug.
    public let merchant: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
}
