import Foundation
import WalletOrdersCurl
import WalletOrdersWebhookModel

/// Sends webhooks over HTTP/1.1 or HTTP/2 with libcurl, from a few threads of its own (`CurlEasyPool`), each with one
/// easy handle whose connections it keeps for the next request to the same host. The threads start with the first
/// request and end with `shutdown()`, which whoever made the transport calls when done with it.
///
/// Requests go where merchants say, so the transport is careful: every address is checked as a connection opens
/// (`AddressPolicy`, unless private addresses are allowed), redirects are not followed, proxies from the environment
/// are ignored, connecting and the whole request have short timeouts, and no more than `maxResponseBytes` of an
/// answer is read.
public final class CurlWebhookTransport: Sendable {
    /// Requests in flight at once: the number of threads.
    public let concurrency: Int
    private let pool: CurlEasyPool
    /// How much of an answer is read before the transfer is cut: its status code is all that counts.
    public static let maxResponseBytes = 64 * 1_024

    /// A transport with `concurrency` threads. `allowPrivate` lets deliveries reach loopback and private addresses:
    /// for tests and development only.
    public init(concurrency: Int = 16, allowPrivate: Bool, connectTimeout: TimeInterval = 5, timeout: TimeInterval = 10) {
        self.concurrency = max(1, concurrency)
        pool = CurlEasyPool(threads: self.concurrency, threadName: "wallet-orders-webhooks") { easy throws(CurlError) in
            try CurlWebhookTransport.prepare(easy, allowPrivate: allowPrivate, connectTimeout: connectTimeout, timeout: timeout)
        }
    }

    /// Stops the threads once the requests already queued are answered, and returns when they have ended; later
    /// requests are answered at once as not sent.
    public func shutdown() async {
        await pool.shutdown()
    }

    /// POSTs `request`; never throws: what went wrong is in the answer.
    public func send(_ request: WebhookRequest) async -> WebhookAnswer {
        let result = await pool.perform { easy throws(CurlError) in
            // libcurl sends `Expect: 100-continue` before a larger body and waits for an answer many servers never give.
            try easy.set(.url(request.url), .headers(CurlHeaderList(request.headers + ["Expect:"])), .postBody(request.body))
        }
        guard let result else { return WebhookAnswer(statusCode: nil, error: "the server is stopping") }
        guard let code = result.status else {
            return WebhookAnswer(statusCode: nil, error: result.failure?.description ?? "the endpoint did not answer")
        }
        return WebhookAnswer(statusCode: code, error: (200..<300).contains(code) ? nil : "the endpoint answered \(code)")
    }

    /// What every delivery shares, set once on each thread's handle.
    private static func prepare(
        _ easy: CurlEasy,
        allowPrivate: Bool,
        connectTimeout: TimeInterval,
        timeout: TimeInterval
    ) throws(CurlError) {
        // An empty proxy: no proxy, whatever the environment says.
        try easy.set(.protocols("http,https"), .proxy(""), .followRedirects(false), .noSignals)
        try easy.set(.connectTimeout(connectTimeout), .timeout(timeout))
        easy.receive(keeping: false, limit: maxResponseBytes)
        guard !allowPrivate else { return }
        try easy.checkAddresses { address in
            AddressPolicy.isPublic(address) ? nil : "refused to connect to \(AddressPolicy.text(address)): not a public address"
        }
    }
}
