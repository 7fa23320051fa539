import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One webhook POST: where, its headers (`name: value`), its body.
public struct WebhookRequest: Sendable {
    public let url: String
    public let headers: [String]
    public let body: Data

    public init(url: String, headers: [String], body: Data) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What came of a POST: the status code when the endpoint answered, and what went wrong otherwise.
public struct WebhookAnswer: Sendable, Equatable {
    public let statusCode: Int?
    public let error: String?

    public init(statusCode: Int?, error: String?) {
        self.statusCode = statusCode
        self.error = error
    }

    /// Whether the endpoint took the event: any 2xx.
    public var isSuccess: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
}

/// Sends webhooks over HTTP/1.1 or HTTP/2 with libcurl, from a few threads of its own, each with one easy handle
/// whose connections it keeps for the next request to the same host. The threads start with the first request and
/// end with `shutdown()`, which whoever made the transport calls when done with it.
///
/// Requests go where merchants say, so the transport is careful: every address is checked as a connection opens
/// (`AddressPolicy`, unless private addresses are allowed), redirects are not followed, proxies from the environment
/// are ignored, connecting and the whole request have short timeouts, and no more than `maxResponseBytes` of an
/// answer is read.
///
/// `@unchecked Sendable`: the queue and the threads' state are guarded by `condition`; each thread alone touches its
/// easy handle.
public final class CurlWebhookTransport: @unchecked Sendable {
    /// Requests in flight at once: the number of threads.
    public let concurrency: Int
    private let allowPrivate: Bool
    private let connectTimeout: TimeInterval
    private let timeout: TimeInterval
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var started = false
    private var stopping = false
    private var running = 0
    /// Who waits in `shutdown()` for the threads to end.
    private var waitingForStop: [CheckedContinuation<Void, Never>] = []
    /// How much of an answer is read before the transfer is cut: its status code is all that counts.
    public static let maxResponseBytes = 64 * 1_024

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private struct Job {
        let request: WebhookRequest
        let continuation: CheckedContinuation<WebhookAnswer, Never>
    }

    /// A transport with `concurrency` threads. `allowPrivate` lets deliveries reach loopback and private addresses:
    /// for tests and development only.
    public init(concurrency: Int = 16, allowPrivate: Bool, connectTimeout: TimeInterval = 5, timeout: TimeInterval = 10) {
        self.concurrency = max(1, concurrency)
        self.allowPrivate = allowPrivate
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    /// Stops the threads once the requests already queued are answered, and returns when they have ended; later
    /// requests are answered at once as not sent.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            let ended = condition.withLock { () -> Bool in
                stopping = true
                condition.broadcast()
                guard running > 0 else { return true }
                waitingForStop.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// POSTs `request`; never throws: what went wrong is in the answer.
    public func send(_ request: WebhookRequest) async -> WebhookAnswer {
        guard Self.globalInit == CURLE_OK else {
            return WebhookAnswer(statusCode: nil, error: "libcurl: curl_global_init failed (\(Self.globalInit.rawValue))")
        }
        return await withCheckedContinuation { continuation in
            let accepted = condition.withLock { () -> Bool in
                guard !stopping else { return false }
                if !started {
                    started = true
                    running = concurrency
                    for index in 0..<concurrency {
                        let thread = Thread { self.loop() }
                        thread.name = "wallet-orders-webhooks-\(index)"
                        thread.start()
                    }
                }
                queue.append(Job(request: request, continuation: continuation))
                condition.signal()
                return true
            }
            if !accepted { continuation.resume(returning: WebhookAnswer(statusCode: nil, error: "the server is stopping")) }
        }
    }

    private func loop() {
        let easy = curl_easy_init()
        defer {
            if let easy { curl_easy_cleanup(easy) }
            let waiting = condition.withLock { () -> [CheckedContinuation<Void, Never>] in
                running -= 1
                guard running == 0 else { return [] }
                defer { waitingForStop = [] }
                return waitingForStop
            }
            for continuation in waiting { continuation.resume() }
        }
        while true {
            let job = condition.withLock { () -> Job? in
                while queue.isEmpty && !stopping { condition.wait() }
                return queue.isEmpty ? nil : queue.removeFirst()
            }
            guard let job else { return }
            guard let easy else {
                job.continuation.resume(returning: WebhookAnswer(statusCode: nil, error: "libcurl: curl_easy_init failed"))
                continue
            }
            job.continuation.resume(returning: perform(job.request, on: easy))
        }
    }

    /// What one transfer learns: how much of the answer came, and which address was refused.
    private final class Transfer {
        let allowPrivate: Bool
        var received = 0
        var refused: String?

        init(allowPrivate: Bool) { self.allowPrivate = allowPrivate }
    }

    private func perform(_ request: WebhookRequest, on easy: UnsafeMutableRawPointer) -> WebhookAnswer {
        let transfer = Transfer(allowPrivate: allowPrivate)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        // libcurl sends `Expect: 100-continue` before a larger body and waits for an answer many servers never give.
        for line in request.headers + ["Expect:"] {
            guard let longer = curl_slist_append(headers, line) else {
                return WebhookAnswer(statusCode: nil, error: "libcurl: curl_slist_append failed (out of memory)")
            }
            headers = longer
        }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let failure = withExtendedLifetime(transfer) { () -> String? in
            let setup: [CURLcode] = [
                request.url.withCString { wo_curl_easy_setopt_ptr(easy, CURLOPT_URL, $0) },
                "http,https".withCString { wo_curl_easy_setopt_ptr(easy, CURLOPT_PROTOCOLS_STR, $0) },
                // An empty proxy: no proxy, whatever the environment says.
                "".withCString { wo_curl_easy_setopt_ptr(easy, CURLOPT_PROXY, $0) },
                wo_curl_easy_setopt_long(easy, CURLOPT_POST, 1),
                wo_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count),
                request.body.withUnsafeBytes { wo_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) },
                wo_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headers),
                wo_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),
                wo_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
                wo_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1_000)),
                wo_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout * 1_000)),
                wo_curl_easy_set_write_callback(easy, Self.receive),
                wo_curl_easy_set_write_data(easy, context),
                wo_curl_easy_set_opensocket(easy, Self.openSocket, context),
            ]
            if let failed = setup.first(where: { $0 != CURLE_OK }) {
                return "libcurl: " + String(cString: curl_easy_strerror(failed))
            }
            let result = curl_easy_perform(easy)
            var code = 0
            _ = wo_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
            if code > 0 { return nil }
            if let refused = transfer.refused { return refused }
            return String(cString: curl_easy_strerror(result))
        }
        var code = 0
        _ = wo_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        // The header list is freed after this: the handle must not point at it for the next request.
        _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, nil)
        if let failure { return WebhookAnswer(statusCode: nil, error: failure) }
        return WebhookAnswer(statusCode: code, error: (200..<300).contains(code) ? nil : "the endpoint answered \(code)")
    }

    /// Counts the answer's bytes and cuts the transfer past `maxResponseBytes`.
    private static let receive: wo_curl_write_callback = { _, size, count, user in
        guard let user else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
        transfer.received += size * count
        return transfer.received > CurlWebhookTransport.maxResponseBytes ? 0 : size * count
    }

    /// Opens a socket for a connection libcurl is about to make, unless its address is not public.
    private static let openSocket: wo_curl_opensocket_callback = { user, _, address in
        guard let user, let address else { return CURL_SOCKET_BAD }
        let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
        if !transfer.allowPrivate {
            let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) ?? 16
            let socketAddress = UnsafeRawPointer(address).advanced(by: offset).assumingMemoryBound(to: sockaddr.self)
            guard let bytes = AddressPolicy.bytes(of: socketAddress), AddressPolicy.isPublic(bytes) else {
                let text = AddressPolicy.bytes(of: socketAddress).map(AddressPolicy.text) ?? "an address of another family"
                transfer.refused = "refused to connect to \(text): not a public address"
                return CURL_SOCKET_BAD
            }
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }
}
