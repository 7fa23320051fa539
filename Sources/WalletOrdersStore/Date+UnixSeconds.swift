import Foundation

extension Date {
    /// Whole unix seconds, as the stores keep times.
    public var unixSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// The date of whole unix seconds.
    public init(unixSeconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixSeconds))
    }
}
