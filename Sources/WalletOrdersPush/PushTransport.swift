import Foundation

/// One push to send to APNs: `POST /3/device/{deviceToken}` with an empty JSON body.
public struct PushRequest: Sendable, Equatable {
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
}

/// What APNs answered, or why there was no answer.
public struct PushResponse: Sendable, Equatable {
    /// The HTTP status; 0 when the request never got an answer.
    public let status: Int
    /// APNs' `reason` (`BadDeviceToken`, `Unregistered` …), or what went wrong on the way.
    public let reason: String?

    public init(status: Int, reason: String?) {
        self.status = status
        self.reason = reason
    }
}

/// Carries pushes to APNs. Sends a batch concurrently and answers in the same order.
public protocol PushTransport: Sendable {
    func send(_ requests: [PushRequest]) async -> [PushResponse]
}

/// Where APNs is and how to reach it.
public struct APNSEndpoint: Sendable {
    /// Which APNs.
    public let environment: APNSEnvironment
    /// A CA file to trust instead of the system's (for a local stand-in).
    public let caFile: String?
    /// A TLS client certificate and key (PEM), for certificate authentication.
    public let clientCertificate: String?
    public let clientKey: String?

    public init(_ environment: APNSEnvironment, caFile: String? = nil, clientCertificate: String? = nil,
                clientKey: String? = nil) {
        self.environment = environment
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    /// The base URL pushes are posted under.
    public var baseURL: String { environment.baseURL }
}
