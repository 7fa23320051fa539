import Foundation

/// What a run of the kit found: each rule's result, in the order checked, and how long an update took to reach the
/// device.
public struct ConformanceReport: Sendable {
    /// How long the steps of an update took, from the start of the `--update` command.
    public struct UpdateTimings: Sendable, Equatable {
        /// Until the command returned.
        public var command: Duration?
        /// Until the push for the kit's token arrived.
        public var push: Duration?
        /// Until the fetch of the new version was answered: what a person sees as the update reaching their device.
        public var fetch: Duration?

        public init(command: Duration? = nil, push: Duration? = nil, fetch: Duration? = nil) {
            self.command = command
            self.push = push
            self.fetch = fetch
        }
    }

    /// The order and web service checked (without the token).
    public let target: String
    /// When the run started.
    public let started: Date
    /// Every rule's result, in the order of `Rule.all`.
    public let results: [RuleResult]
    public let timings: UpdateTimings
    /// What the reader should know about how the run went (a refused listing retried with the token, the update
    /// command's output …).
    public let notes: [String]

    public init(target: String, started: Date, results: [RuleResult], timings: UpdateTimings, notes: [String]) {
        self.target = target
        self.started = started
        self.results = results
        self.timings = timings
        self.notes = notes
    }

    /// Whether every "must" passed (or was skipped): the run's verdict, and the command's exit status 0.
    public var passed: Bool { !results.contains(where: \.failsTheRun) }

    /// The result for rule `id`.
    public func result(_ id: String) -> RuleResult? { results.first { $0.rule.id == id } }

    /// How many results have `status`.
    public func count(_ status: RuleResult.Status) -> Int { results.filter { $0.status == status }.count }
}
