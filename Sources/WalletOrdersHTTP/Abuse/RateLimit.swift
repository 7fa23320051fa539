import Foundation

/// How often a client may do something: `burst` times at once, the allowance refilling evenly over `period`
/// (`30/min`: thirty at once, then one every two seconds).
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    /// How many at once; also how many per `period` once the allowance is spent.
    public var burst: Int
    /// The time in which a spent allowance refills.
    public var period: Duration

    public init(burst: Int, per period: Duration) {
        precondition(burst > 0 && period > .zero, "a rate limit needs a positive count and period")
        self.burst = burst
        self.period = period
    }

    /// Allowance regained per second.
    public var perSecond: Double { Double(burst) / period.seconds }

    public var description: String {
        switch period {
        case .seconds(1): "\(burst)/s"
        case .seconds(60): "\(burst)/min"
        case .seconds(3_600): "\(burst)/h"
        default: "\(burst) per \(period)"
        }
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
