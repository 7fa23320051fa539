/// One requirement of the Wallet Orders protocol that the kit checks: Apple's words and the page they are on, how much
/// Wallet depends on it, and what the kit does to check it.
public struct Rule: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// How much Wallet depends on a rule.
    public enum Level: String, Sendable, CaseIterable {
        /// Wallet fails without it: a run passes only when every "must" passes.
        case must
        /// Wallet copes without it, or only some of its paths depend on it.
        case should
    }

    /// What a rule needs besides the orderDetails; without it the rule is skipped.
    public enum Input: String, Sendable, CaseIterable {
        /// `--update`: a command that makes the server change the order.
        case update
        /// `--unchanged-update`: a command that makes the server "update" the order without changing it.
        case unchangedUpdate = "unchanged-update"
        /// `--apns`: a local APNs the server pushes to.
        case apns
    }

    /// A stable identifier, `area.name` (`fetch.status`); reports and CI systems key on it.
    public let id: String
    public let level: Level
    /// What passing means, in a few words.
    public let title: String
    /// Apple's words, quoted from `page`.
    public let requirement: String
    /// The Apple page `requirement` is quoted from.
    public let page: String
    /// What the kit sends and what it takes as a pass, with the source of any detail Apple's words leave out.
    public let check: String
    /// Rules that must pass before this one means anything; when one did not, this one is skipped.
    public let dependencies: [String]
    /// What the run must be given for this rule.
    public let inputs: [Input]

    init(
        _ id: String,
        _ level: Level,
        _ title: String,
        apple requirement: String,
        page: String,
        check: String,
        after dependencies: [String] = [],
        needs inputs: [Input] = []
    ) {
        self.id = id
        self.level = level
        self.title = title
        self.requirement = requirement
        self.page = page
        self.check = check
        self.dependencies = dependencies
        self.inputs = inputs
    }

    public static func == (lhs: Rule, rhs: Rule) -> Bool { lhs.id == rhs.id }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    public var description: String { "\(id) (\(level.rawValue)): \(title)" }
}
