import NIOCore
import NIOHTTPTypes

/// Closes a new connection at once when its client already holds as many as `ClientConnections` allows, and
/// counts the others while they are open. Without it one address could open every connection the server takes
/// (`maxConnections`) and leave everyone else waiting in the listen backlog.
///
/// It sees only the socket's peer: a trusted proxy's header comes with a request, after the connection is
/// accepted, so behind a proxy the proxy is the client here.
final class ClientConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let connections: ClientConnections
    private let onRefuse: @Sendable () -> Void
    /// The key this connection is counted under, until it closes.
    private var counted: String?

    init(connections: ClientConnections, onRefuse: @escaping @Sendable () -> Void) {
        self.connections = connections
        self.onRefuse = onRefuse
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let address = context.channel.remoteAddress?.ipAddress else {
            // A peer with no IP address (a Unix socket) is nobody's client to count.
            context.fireChannelActive()
            return
        }
        let key = ClientAddress.limiterKey(address)
        if connections.opened(key) {
            counted = key
            context.fireChannelActive()
        } else {
            onRefuse()
            // Active first, then closed: the handlers after this one see the connection end as any other does.
            context.fireChannelActive()
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        guard let key = counted else { return }
        counted = nil
        connections.closed(key)
    }
}
