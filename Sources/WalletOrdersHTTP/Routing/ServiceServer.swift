import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP/1.1 server in front of a router, with the limits on slow and idle clients and on open connections.
public enum ServiceServer {
    /// An application serving `router` on `host`:`port` under `limits`; `onServerRunning` receives the bound port.
    /// `services` run beside the server and stop after it.
    public static func make(
        router: Router<ServiceRequestContext>,
        host: String,
        port: Int,
        limits: ClientLimits,
        metrics: any HTTPMetrics,
        services: [any Service] = [],
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<ServiceRequestContext>> {
        // One table of open connections for the whole server; the handlers are made anew for each connection.
        let perClient = limits.maxConnectionsPerClient.map(ClientConnections.init(limit:))
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: connectionHandlers(limits, perClient: perClient, metrics: metrics),
            idleTimeout: limits.idleTimeout.map(TimeAmount.init)
        )
        return Application(
            router: router,
            server: .http1(configuration: http1),
            configuration: .init(
                address: .hostname(host, port: port),
                serverName: "wallet-orders",
                availableConnectionsDelegate: limits.maxConnections.map {
                    MaximumAvailableConnections($0, logger: logger)
                }
            ),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// The handlers of one new connection, after the HTTP/1 decoder. Hummingbird closes connections that send
    /// nothing for the idle timeout; the per-client cap closes those of a client that holds too many already, the
    /// slow-client handler those that send a request too slowly, and the connection cap keeps the rest waiting in
    /// the backlog.
    private static func connectionHandlers(
        _ limits: ClientLimits,
        perClient: ClientConnections?,
        metrics: any HTTPMetrics
    ) -> [any RemovableChannelHandler] {
        var handlers: [any RemovableChannelHandler] = []
        if let perClient {
            handlers.append(ClientConnectionHandler(connections: perClient, onRefuse: { metrics.clientConnectionRefused() }))
        }
        handlers.append(
            SlowClientHandler(
                headerTimeout: limits.headerTimeout.map(TimeAmount.init),
                bodyTimeout: limits.bodyTimeout.map(TimeAmount.init),
                onClose: { metrics.slowClientClosed($0) }
            )
        )
        return handlers
    }
}
