import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

extension LocalAPNS {
    /// The stand-in listening on a port: HTTP/2 over TLS 1.2 or later, `h2` by ALPN, as APNs.
    public final class Listener: Sendable {
        /// The port it listens on (the one the system chose when asked for port 0).
        public let port: Int
        private let channel: any Channel
        private let connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>

        fileprivate init(channel: any Channel, connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>) {
            self.channel = channel
            self.connections = connections
            port = channel.localAddress?.port ?? 0
        }

        /// Stops listening and closes every client connection, without waiting for them to be closed.
        public func close() {
            channel.close(promise: nil)
            for connection in connections.withLockedValue({ Array($0.values) }) { connection.close(promise: nil) }
        }

        /// Waits until the stand-in is closed; cancelling the calling task closes it.
        public func run() async {
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                close()
            }
        }
    }

    /// How many RST_STREAM frames a connection may send before it is closed as a rapid-reset attack.
    ///
    /// libcurl 7.88 (Debian 12) sends RST_STREAM(STREAM_CLOSED) after every response without a body, that is
    /// after every accepted push, although the stream is already closed on both sides (nghttpd sees the same
    /// frames). Such a reset costs the server nothing and RFC 9113 §5.1 has it ignored, but swift-nio-http2
    /// counts every RST_STREAM against its CVE-2023-44487 guard, 200 in 30 seconds by default, and then answers
    /// GOAWAY ENHANCE_YOUR_CALM (last stream 0): every push in flight fails with libcurl's "Error in the HTTP2
    /// framing layer". So the guard here only trips far above what a client finishing streams at full speed
    /// sends: 20,000 in 100 ms (NIO keeps one timestamp per reset in the window).
    static let resetFrameRateLimit = {
        var limit = NIOHTTP2Handler.StreamResetFrameRateLimitConfiguration()
        limit.maximumCount = 20_000
        limit.windowLength = .milliseconds(100)
        return limit
    }()

    /// Starts listening on `host:port` (0: any free port) with the server side of `tls`. With
    /// `takingClientCertificates`, each client is asked for a TLS certificate and whatever it presents is taken as it
    /// is, for a caller that judges it itself (a provider authenticating with a certificate, whose intermediate it
    /// does not send).
    public func listen(
        host: String = "127.0.0.1",
        port: Int = 0,
        tls: TLSConfiguration,
        takingClientCertificates: Bool = false,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> Listener {
        var tls = tls
        if takingClientCertificates { tls.certificateVerification = .optionalVerification }
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        let sslContext = try NIOSSLContext(configuration: tls)
        let connection = {
            var connection = NIOHTTP2Handler.ConnectionConfiguration()
            connection.initialSettings = settings.http2Settings
            return connection
        }()
        let stream = {
            var stream = NIOHTTP2Handler.StreamConfiguration()
            stream.streamResetFrameRateLimit = Self.resetFrameRateLimit
            return stream
        }()
        let connections = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                let id = ObjectIdentifier(channel)
                connections.withLockedValue { $0[id] = channel }
                channel.closeFuture.whenComplete { _ in _ = connections.withLockedValue { $0.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(
                        takingClientCertificates
                            ? NIOSSLServerHandler(context: sslContext) { _, promise in promise.succeed(.certificateVerified) }
                            : NIOSSLServerHandler(context: sslContext)
                    )
                    try pipeline.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: connection, streamConfiguration: stream))
                    try pipeline.addHandler(APNSConnectionHandler(apns: self))
                }
            }
            .bind(host: host, port: port).get()
        return Listener(channel: channel, connections: connections)
    }
}
