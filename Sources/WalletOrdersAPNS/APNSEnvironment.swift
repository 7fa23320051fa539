/// Which APNs a push goes to.
public enum APNSEnvironment: Sendable, Equatable, CustomStringConvertible {
    /// APNs for apps from the App Store and TestFlight.
    case production
    /// APNs for development builds.
    case sandbox
    /// Another server speaking APNs' protocol (a local stand-in), at an `https://` base URL.
    case custom(url: String)

    /// `production`, `sandbox` or an `https://` URL, as configuration files and variables spell it; nil for
    /// anything else.
    public init?(_ text: String) {
        switch text {
        case "production": self = .production
        case "sandbox": self = .sandbox
        default:
            guard text.lowercased().hasPrefix("https://") else { return nil }
            var url = text
            while url.hasSuffix("/") { url.removeLast() }
            self = .custom(url: url)
        }
    }

    /// The base URL pushes are posted under, without a trailing slash.
    public var baseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .sandbox: "https://api.sandbox.push.apple.com"
        case .custom(let url): url
        }
    }

    public var description: String {
        switch self {
        case .production: "production"
        case .sandbox: "sandbox"
        case .custom(let url): url
        }
    }
}
