/// The conformance kit: checks a Wallet Orders web service the way Wallet talks to it, rule by rule, and says what
/// Wallet would do with each answer.
public enum ConformanceKit {
    /// Runs every rule against the web service `configuration` names: the fetch and its package, registering, the
    /// listing, the log endpoint and, with the commands and the local APNs, an update and its push. Throws only when
    /// the run cannot start (an unreadable CA); every answer of the server, good or bad, goes into the report.
    public static func run(_ configuration: ConformanceConfiguration) async throws -> ConformanceReport {
        try await ConformanceRun(configuration).run()
    }
}
