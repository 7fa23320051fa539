import Hummingbird
import NIOCore
import WalletOrdersStore

/// The per-request context: Hummingbird's core storage plus the peer's address and the client's.
public struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The socket's peer: the client, or a reverse proxy in front of the service.
    public let remoteAddress: SocketAddress?
    /// The client's IP address: the peer's, or the trusted-proxy header's when one is configured. What rate
    /// limits count by and device logs record.
    public var clientAddress: String?
    /// The merchant the request's merchant API key speaks for, once the merchant API authenticated it.
    public var merchant: Merchant?
    /// The logistics partner the request's partner key speaks for, once the merchant API authenticated it.
    public var partner: Partner?
    /// The connection the request came on, for what is written outside its response (`100 Continue`) and what its
    /// handlers are told (`StreamedBody`).
    let channel: any Channel
    /// The `100 Continue` a client waits for before sending its body, when it does (see `ContinueMiddleware`).
    var continueInterim: ContinueOnce?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        remoteAddress = source.channel.remoteAddress
        clientAddress = remoteAddress?.ipAddress
    }
}
