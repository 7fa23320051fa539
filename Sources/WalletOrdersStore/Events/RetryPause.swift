/// How long a background worker waits before asking the store again after a write it refused (its disk full, its
/// server restarting): half a second after the first refusal, twice as long after each further one, at most
/// `longest`. The worker neither spins nor logs in a loop while the store cannot write, and is back within
/// `longest` once it can.
public struct RetryPause: Sendable {
    /// The longest pause.
    public let longest: Duration
    /// Refusals in a row so far.
    public private(set) var failures = 0

    public init(longest: Duration = .seconds(10)) {
        self.longest = longest
    }

    /// Counts a refusal and answers how long to wait before the next try.
    public mutating func failed() -> Duration {
        failures += 1
        var pause = Duration.milliseconds(500)
        for _ in 1..<min(failures, 16) where pause < longest { pause *= 2 }
        return min(pause, longest)
    }

    /// Counts a success: the next refusal waits half a second again.
    public mutating func succeeded() {
        failures = 0
    }
}
