import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import WalletOrdersCrypto

/// The HTTP/1.1 client a simulated device calls web services with: plain http for development servers, https
/// trusting the system's roots and any extra CA given. One connection per request, as the device makes a handful.
public struct DeviceHTTPClient: Sendable {
    /// An answer: status, headers and the whole body.
    public struct Response: Sendable {
        public let status: Int
        /// Header fields in the order they came.
        public let headers: [HeaderField]
        public let body: Data

        /// The first value of the header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// One header field.
    public struct HeaderField: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A request that got no answer: a bad URL, no connection, a TLS failure, a timeout or a body too large.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// Bodies larger than this are refused: a package is below 5 MB, and a hostile server must not fill memory.
    public static let maximumBodyBytes = 16 << 20

    private let sslContext: NIOSSLContext
    private let timeout: Duration
    private let group: any EventLoopGroup

    /// A client trusting, for https, the system's roots and `certificateAuthorities`; every request gives up after
    /// `timeout`.
    public init(
        certificateAuthorities: [Certificate] = [],
        timeout: Duration = .seconds(10),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if !certificateAuthorities.isEmpty {
            tls.additionalTrustRoots = [
                .certificates(
                    try certificateAuthorities.map {
                        try NIOSSLCertificate(bytes: Array($0.der), format: .der)
                    }
                )
            ]
        }
        sslContext = try NIOSSLContext(configuration: tls)
        self.timeout = timeout
        self.group = group
    }

    /// Sends one request and collects the whole answer.
    public func send(
        _ method: String,
        _ url: String,
        headers: [HeaderField] = [],
        body: Data? = nil
    ) async throws
        -> Response
    {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let rawHost = components.host, !rawHost.isEmpty
        else {
            throw Failure("\(url) is not an http or https URL")
        }
        // An IPv6 literal keeps its brackets in the Host header but not when connecting.
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?\(query)" }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        let defaultPort = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        head.headers.add(name: "Host", value: defaultPort ? hostHeader : "\(hostHeader):\(port)")
        head.headers.add(name: "User-Agent", value: "wallet-orders-device")
        head.headers.add(name: "Connection", value: "close")
        for field in headers { head.headers.add(name: field.name, value: field.value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        let request = head
        let tls = scheme == "https" ? sslContext : nil

        return try await withThrowingTaskGroup(of: Response?.self) { tasks in
            tasks.addTask { try await self.exchange(request, body: body, host: host, port: port, tls: tls) }
            tasks.addTask {
                try await Task.sleep(for: self.timeout)
                return nil
            }
            defer { tasks.cancelAll() }
            guard let first = try await tasks.next(), let response = first else {
                throw Failure("no answer within \(timeout)")
            }
            return response
        }
    }

    private func exchange(
        _ head: HTTPRequestHead,
        body: Data?,
        host: String,
        port: Int,
        tls: NIOSSLContext?
    )
        async throws -> Response
    {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let tls {
                            // SNI takes a host name, never an address; an address is checked against the
                            // certificate's IP entries.
                            let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                            try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host))
                        }
                        try pipeline.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
        } catch {
            throw Failure("cannot connect to \(host):\(port): \(error)")
        }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                // The whole request in one flush: a server may answer and close as soon as it has read a request
                // (a GET needs no more than its head), and a part written after that would find the channel closed.
                var parts: [HTTPClientRequestPart] = [.head(head)]
                if let body, !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                parts.append(.end(nil))
                try await outbound.write(contentsOf: parts)
                var status: Int?
                var headers: [HeaderField] = []
                var collected = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let responseHead):
                        status = Int(responseHead.status.code)
                        headers = responseHead.headers.map { HeaderField($0.name, $0.value) }
                    case .body(var bytes):
                        guard collected.readableBytes + bytes.readableBytes <= Self.maximumBodyBytes else {
                            throw Failure("the answer's body is larger than \(Self.maximumBodyBytes) bytes")
                        }
                        collected.writeBuffer(&bytes)
                    case .end:
                        guard let status else { throw Failure("the answer ended before its status line") }
                        return Response(status: status, headers: headers, body: Data(collected.readableBytesView))
                    }
                }
                throw Failure("the connection closed before the answer was complete")
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("\(error)")
        }
    }
}
