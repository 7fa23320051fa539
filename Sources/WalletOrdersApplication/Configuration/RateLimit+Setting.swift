import Foundation
import WalletOrdersHTTP

extension RateLimit {
    /// Reads the setting `key`, written `COUNT/UNIT` (`s`, `min` or `h`); `off` (or `0`, `none`) is nil: no limit.
    static func setting(_ text: String, key: String) throws -> RateLimit? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if ["off", "0", "none"].contains(trimmed) { return nil }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        let periods: [String: Duration] = [
            "s": .seconds(1), "sec": .seconds(1), "min": .seconds(60), "m": .seconds(60),
            "h": .seconds(3_600),
        ]
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let period = periods[String(parts[1])] else {
            throw ConfigurationError("\(key): a rate limit is written COUNT/s, COUNT/min or COUNT/h (or off), not \(text)")
        }
        return RateLimit(burst: count, per: period)
    }
}
