/// One push to a Wallet device: `POST /3/device/{deviceToken}` with an empty JSON object, as a background push of
/// priority 5 on the order type's topic. Wallet then asks the web service what changed.
public struct APNSRequest: Sendable, Equatable {
    /// The APNs topic: the order type identifier.
    public let topic: String
    /// The device's push token, hex.
    public let deviceToken: String
    /// The provider token (JWT) for token authentication; nil with certificate authentication.
    public let providerToken: String?

    public init(topic: String, deviceToken: String, providerToken: String?) {
        self.topic = topic
        self.deviceToken = deviceToken
        self.providerToken = providerToken
    }

    /// Where every push path starts.
    public static let pathPrefix = "/3/device/"
    /// `apns-push-type`: Wallet's pushes carry no alert.
    public static let pushType = "background"
    /// `apns-priority`: background pushes must use 5.
    public static let priority = "5"
    /// The body: Wallet's pushes are empty.
    public static let body = "{}"
    /// The largest payload APNs takes, in bytes.
    public static let maximumPayload = 4_096

    /// The request's path.
    public var path: String { Self.pathPrefix + deviceToken }
}
