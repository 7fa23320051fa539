/// What a run found for one rule.
public struct RuleResult: Sendable, CustomStringConvertible {
    /// Passed, failed, or not checked.
    public enum Status: String, Sendable, CaseIterable {
        case pass
        case fail
        case skipped
    }

    public let rule: Rule
    public let status: Status
    /// For a pass or a failure, what the server answered (its text with the authentication token blanked out); for a
    /// skipped rule, why it was not checked.
    public let detail: String

    public init(rule: Rule, status: Status, detail: String) {
        self.rule = rule
        self.status = status
        self.detail = detail
    }

    /// Whether this result makes the run fail: a "must" that failed.
    public var failsTheRun: Bool { status == .fail && rule.level == .must }

    public var description: String { "\(rule.id) \(status.rawValue): \(detail)" }
}
