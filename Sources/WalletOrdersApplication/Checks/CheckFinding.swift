/// One result of the start-up checks: a sentence about one thing, and how bad it is.
public struct CheckFinding: Sendable, Equatable, CustomStringConvertible {
    public enum Level: String, Sendable {
        case ok, warning, problem
    }

    public let level: Level
    public let message: String

    public init(level: Level, message: String) {
        self.level = level
        self.message = message
    }

    public var description: String {
        switch level {
        case .ok: "ok       \(message)"
        case .warning: "warning  \(message)"
        case .problem: "problem  \(message)"
        }
    }
}
