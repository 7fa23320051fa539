import Foundation
import WalletOrdersAPNS

/// Carries pushes to APNs. Sends a batch concurrently and answers in the same order.
public protocol PushTransport: Sendable {
    func send(_ requests: [APNSRequest]) async -> [APNSResponse]
    /// Stops whatever the transport runs (threads, connections) and returns once it has; later pushes are answered
    /// as not sent.
    func shutdown() async
}

extension PushTransport {
    /// A transport that runs nothing of its own has nothing to stop.
    public func shutdown() async {}
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

    public init(
        _ environment: APNSEnvironment,
        caFile: String? = nil,
        clientCertificate: String? = nil,
        clientKey: String? = nil
    ) {
        self.environment = environment
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    /// The base URL pushes are posted under.
    public var baseURL: String { environment.baseURL }
}
