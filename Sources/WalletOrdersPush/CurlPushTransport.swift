import Foundation
import WalletOrdersAPNS
import WalletOrdersCurl

/// Sends pushes over HTTP/2 with libcurl's multi interface (`CurlMultiLoop`): a few long-lived connections, each
/// carrying many concurrent streams, driven by one thread of its own so no Swift or NIO thread ever blocks on the
/// network. The thread starts with the first push and ends with `shutdown()`, which whoever made the transport calls
/// when done with it.
///
/// `@unchecked Sendable`: `headers` is touched only by the loop's thread, in `configure`.
public final class CurlPushTransport: PushTransport, @unchecked Sendable {
    private let endpoint: APNSEndpoint
    /// The loop, or why the transport cannot send anything (libcurl without HTTP/2, a multi handle that could not be
    /// set up): every push is then answered `notAnswered` with the reason.
    private let loop: Result<CurlMultiLoop, CurlError>
    /// The newest header list of each topic: pushes of a topic share one until its provider token changes.
    private var headers: [String: TopicHeaders] = [:]

    /// Throws unless the libcurl this process loaded speaks HTTP/2, which APNs requires (for `doctor` and start-up).
    public static func checkHTTP2Support() throws(CurlError) {
        let version = try CurlLibrary.version()
        guard version.http2 else {
            throw CurlError("libcurl \(version.number) was built without HTTP/2 (nghttp2), which APNs requires")
        }
        guard version.tls else { throw CurlError("libcurl \(version.number) was built without TLS, which APNs requires") }
    }

    /// A transport to `endpoint`, with at most `connections` connections and `streamsPerConnection` concurrent
    /// requests on each. libcurl opens another connection only when the open ones have no stream free (APNs
    /// allows several connections per provider). When libcurl cannot be set up for HTTP/2, every push is
    /// answered `notAnswered` with the reason.
    public init(endpoint: APNSEndpoint, connections: Int = 4, streamsPerConnection: Int = 100, timeout: TimeInterval = 15) {
        self.endpoint = endpoint
        loop = Result { () throws(CurlError) -> CurlMultiLoop in
            try CurlLibrary.initialize()
            try CurlPushTransport.checkHTTP2Support()
            return try CurlMultiLoop(
                label: "the push transport",
                threadName: "wallet-orders-apns",
                connections: connections,
                streamsPerConnection: streamsPerConnection,
                prepare: { easy throws(CurlError) in try CurlPushTransport.prepare(easy, for: endpoint, timeout: timeout) }
            )
        }
    }

    /// Stops the transfer thread and returns once it has ended; requests still in flight are answered `notAnswered`.
    /// Whoever made the transport calls this when done with it: the thread holds the transport until then.
    public func shutdown() async {
        if case .success(let loop) = loop { await loop.shutdown() }
    }

    /// Sends `requests` at once and answers each, in the same order.
    public func send(_ requests: [APNSRequest]) async -> [APNSResponse] {
        guard !requests.isEmpty else { return [] }
        let loop: CurlMultiLoop
        switch self.loop {
        case .success(let running): loop = running
        case .failure(let failure): return requests.map { _ in .notAnswered(failure.description) }
        }
        guard let results = await loop.perform(requests.map(setup)) else {
            return requests.map { _ in .notAnswered("the push transport is shut down") }
        }
        return results.map(Self.response)
    }

    /// The request headers of the pushes of one topic and provider token.
    private struct TopicHeaders {
        let providerToken: String?
        let list: CurlHeaderList
    }

    /// The options every push shares: HTTP/2 over TLS, the endpoint's trust and client identity, the body, the
    /// timeout, and the answer's body kept (APNs' reason). Set once per handle.
    private static func prepare(_ easy: CurlEasy, for endpoint: APNSEndpoint, timeout: TimeInterval) throws(CurlError) {
        try easy.set(.postBody(Data("{}".utf8)), .http2OverTLS)
        // Wait for a multiplexed stream on the open connection rather than opening another one.
        try easy.set(.waitForMultiplexing(true), .minimumTLS12, .noSignals, .timeout(timeout))
        if let caFile = endpoint.caFile { try easy.set(.caFile(caFile)) }
        if let certificate = endpoint.clientCertificate { try easy.set(.clientCertificate(certificate)) }
        if let key = endpoint.clientKey { try easy.set(.clientKey(key)) }
        easy.receive(keeping: true)
    }

    /// How the loop's thread sets a handle up for `request`.
    private func setup(for request: APNSRequest) -> CurlEasy.Setup {
        { easy throws(CurlError) in try self.configure(easy, for: request) }
    }

    /// What differs between pushes: the device's URL and the topic's headers. Runs on the loop's thread.
    private func configure(_ easy: CurlEasy, for request: APNSRequest) throws(CurlError) {
        let list: CurlHeaderList
        if let current = headers[request.topic], current.providerToken == request.providerToken {
            list = current.list
        } else {
            var lines = [
                "apns-topic: \(request.topic)",
                "apns-push-type: \(APNSRequest.pushType)",
                "apns-priority: \(APNSRequest.priority)",
                "content-type: application/json",
            ]
            if let providerToken = request.providerToken { lines.append("authorization: bearer \(providerToken)") }
            list = try CurlHeaderList(lines)
            headers[request.topic] = TopicHeaders(providerToken: request.providerToken, list: list)
        }
        try easy.set(.url(endpoint.baseURL + request.path), .headers(list))
    }

    /// APNs' answer to one push, or why none came.
    private static func response(_ result: CurlResult) -> APNSResponse {
        if let failure = result.failure { return .notAnswered(failure.description) }
        return .answered(status: result.status ?? 0, reason: reason(result.body))
    }

    /// APNs' `{"reason": "…"}`, when the body has one.
    private static func reason(_ body: Data) -> APNSReason? {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let reason = object["reason"] as? String
        else { return nil }
        return APNSReason(rawValue: reason)
    }
}
