import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the peer's address, for device logs.
public struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
