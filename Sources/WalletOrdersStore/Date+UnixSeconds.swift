import Foundation

extension Date {
    /// Whole unix seconds, as the stores keep times. Total: an instant beyond what Int64 holds is its nearer end, and
    /// one that is not a number (NaN) is `Int64.min`, so that no date, however it was made, stops the process.
    public var unixSeconds: Int64 {
        let seconds = timeIntervalSince1970.rounded(.down)
        // 2^63 is the first Double above Int64.max (which no Double holds); -2^63 is Int64.min exactly.
        if seconds.isNaN || seconds < -0x1p63 { return .min }
        if seconds >= 0x1p63 { return .max }
        return Int64(seconds)
    }

    /// The date of whole unix seconds.
    public init(unixSeconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixSeconds))
    }
}
