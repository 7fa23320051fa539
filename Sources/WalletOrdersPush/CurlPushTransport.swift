import CCurl
import Foundation
import WalletOrdersAPNS

/// Sends pushes over HTTP/2 with libcurl's multi interface: a few long-lived connections, each carrying many
/// concurrent streams, driven by one thread of its own so no Swift or NIO thread ever blocks on the network.
///
/// `@unchecked Sendable`: every mutable field is either touched only by the transfer thread or guarded by `lock`,
/// and `curl_multi_wakeup` is documented as callable from any thread.
public final class CurlPushTransport: PushTransport, @unchecked Sendable {
    private let endpoint: APNSEndpoint
    private let timeout: TimeInterval
    /// How many transfers are handed to libcurl at once: every connection's streams, no more, so libcurl never
    /// keeps a long pending list of its own.
    private let capacity: Int
    private let multi: UnsafeMutableRawPointer?
    /// Why the transport cannot send anything (libcurl without HTTP/2, a multi handle that could not be set up);
    /// every push is then answered `notAnswered` with this reason.
    private let startupFailure: CurlError?
    private let lock = NSLock()
    private var queued: [Transfer] = []
    private var stopping = false
    /// Easy handles kept for reuse once their transfer is done, with the options every push shares still set;
    /// touched only by the transfer thread.
    private var idle: [UnsafeMutableRawPointer] = []
    /// The newest header list of each topic (pushes of a topic share one until its provider token changes);
    /// touched only by the transfer thread.
    private var headerLists: [String: HeaderList] = [:]
    /// Every push's body, `{}`: libcurl reads it in place, so it lives as long as the transport.
    private let pushBody = strdup("{}")
    /// Whether the transfer thread was started (by the first push), and whether it has ended; who waits for it to.
    private var started = false
    private var ended = false
    private var waitingForStop: [CheckedContinuation<Void, Never>] = []

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Throws unless the libcurl this process loaded speaks HTTP/2, which APNs requires (for `doctor` and start-up).
    public static func checkHTTP2Support() throws {
        guard let info = wo_curl_version_info() else { throw CurlError("libcurl: curl_version_info answered nothing") }
        let version = info.pointee.version.map { String(cString: $0) } ?? "?"
        guard info.pointee.features & CURL_VERSION_HTTP2 != 0 else {
            throw CurlError("libcurl \(version) was built without HTTP/2 (nghttp2), which APNs requires")
        }
        guard info.pointee.features & CURL_VERSION_SSL != 0 else {
            throw CurlError("libcurl \(version) was built without TLS, which APNs requires")
        }
    }

    /// A transport to `endpoint`, with at most `connections` connections and `streamsPerConnection` concurrent
    /// requests on each. libcurl opens another connection only when the open ones have no stream free (APNs
    /// allows several connections per provider). When libcurl cannot be set up for HTTP/2, every push is
    /// answered `notAnswered` with the reason.
    public init(endpoint: APNSEndpoint, connections: Int = 4, streamsPerConnection: Int = 100, timeout: TimeInterval = 15) {
        self.endpoint = endpoint
        self.timeout = timeout
        capacity = max(1, connections * streamsPerConnection)
        var failure = CurlError.check(Self.globalInit, "curl_global_init")
        if failure == nil {
            do { try Self.checkHTTP2Support() } catch { failure = error as? CurlError }
        }
        let multi = failure == nil ? curl_multi_init() : nil
        if failure == nil, multi == nil { failure = CurlError("libcurl: curl_multi_init failed") }
        if let multi, failure == nil {
            failure =
                CurlError.check(
                    wo_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX),
                    "setting CURLMOPT_PIPELINING"
                )
                ?? CurlError.check(
                    wo_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections),
                    "setting CURLMOPT_MAX_HOST_CONNECTIONS"
                )
                ?? CurlError.check(
                    wo_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streamsPerConnection),
                    "setting CURLMOPT_MAX_CONCURRENT_STREAMS"
                )
        }
        self.multi = multi
        startupFailure = failure
        if failure != nil { stopping = true }
    }

    /// Stops the transfer thread and returns once it has ended; requests still in flight are answered `notAnswered`.
    /// Whoever made the transport calls this when done with it: the thread holds the transport until then.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            let (wake, done) = lock.withLock { () -> (Bool, Bool) in
                stopping = true
                guard started, !ended else { return (false, true) }
                waitingForStop.append(continuation)
                return (true, false)
            }
            if wake, let multi { Self.wake(multi) }
            if done { continuation.resume() }
        }
    }

    deinit {
        // Only once the thread has ended, or never started: it holds the transport while it runs.
        for easy in idle { curl_easy_cleanup(easy) }
        if let multi { curl_multi_cleanup(multi) }
        headerLists.removeAll()
        free(pushBody)
    }

    public func send(_ requests: [APNSRequest]) async -> [APNSResponse] {
        guard !requests.isEmpty else { return [] }
        if let startupFailure { return requests.map { _ in .notAnswered(startupFailure.description) } }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: requests.count, continuation: continuation)
            let transfers = requests.enumerated().map { Transfer(request: $1, batch: batch, index: $0) }
            let accepted = lock.withLock { () -> Bool in
                guard !stopping else { return false }
                queued.append(contentsOf: transfers)
                if !started {
                    started = true
                    // The thread holds the transport until `shutdown()` ends its loop. (An unowned capture trapped
                    // when the transport was let go before the thread first ran.)
                    let thread = Thread { self.loop() }
                    thread.name = "wallet-orders-apns"
                    thread.start()
                }
                return true
            }
            guard accepted else {
                continuation.resume(returning: requests.map { _ in .notAnswered("the push transport is shut down") })
                return
            }
            if let multi { Self.wake(multi) }
        }
    }

    /// The requests of one `send` call: answered together once the last of them is done. Touched only by the
    /// transfer thread once queued.
    private final class Batch {
        var responses: [APNSResponse]
        var remaining: Int
        let continuation: CheckedContinuation<[APNSResponse], Never>

        init(count: Int, continuation: CheckedContinuation<[APNSResponse], Never>) {
            responses = Array(repeating: .notAnswered("not sent"), count: count)
            remaining = count
            self.continuation = continuation
        }

        func answer(_ index: Int, _ response: APNSResponse) {
            responses[index] = response
            remaining -= 1
            if remaining == 0 { continuation.resume(returning: responses) }
        }
    }

    /// One request on its way: the easy handle, its header list and what has come back.
    private final class Transfer {
        let request: APNSRequest
        let batch: Batch
        let index: Int
        var easy: UnsafeMutableRawPointer?
        var headers: HeaderList?
        var body = Data()

        init(request: APNSRequest, batch: Batch, index: Int) {
            self.request = request
            self.batch = batch
            self.index = index
        }
    }

    /// The request headers of the pushes of one topic and provider token, as the list libcurl sends; freed once no
    /// transfer uses it and a newer one replaced it.
    private final class HeaderList {
        let providerToken: String?
        let list: UnsafeMutablePointer<curl_slist>

        init(topic: String, providerToken: String?) throws {
            var lines = [
                "apns-topic: \(topic)",
                "apns-push-type: \(APNSRequest.pushType)",
                "apns-priority: \(APNSRequest.priority)",
                "content-type: application/json",
            ]
            if let providerToken { lines.append("authorization: bearer \(providerToken)") }
            var list: UnsafeMutablePointer<curl_slist>?
            for line in lines {
                guard let longer = curl_slist_append(list, line) else {
                    curl_slist_free_all(list)
                    throw CurlError("libcurl: curl_slist_append failed for the request headers")
                }
                list = longer
            }
            guard let list else { throw CurlError("libcurl: no request headers") }
            self.providerToken = providerToken
            self.list = list
        }

        deinit { curl_slist_free_all(list) }
    }

    private func loop() {
        guard let multi else { return }
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        var backlog: [Transfer] = []
        var next = 0
        while true {
            let (incoming, stop) = lock.withLock { () -> ([Transfer], Bool) in
                defer { queued.removeAll() }
                return (queued, stopping)
            }
            if stop {
                for transfer in Array(backlog[next...]) + incoming + Array(active.values) {
                    finish(transfer, .notAnswered("the push transport shut down"), active: &active)
                }
                let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                    ended = true
                    defer { waitingForStop = [] }
                    return waitingForStop
                }
                for continuation in waiting { continuation.resume() }
                return
            }
            backlog.append(contentsOf: incoming)
            while active.count < capacity, next < backlog.count {
                let transfer = backlog[next]
                next += 1
                do {
                    active[try start(transfer, on: multi)] = transfer
                } catch {
                    transfer.batch.answer(transfer.index, .notAnswered("\(error)"))
                }
            }
            if next == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                next = 0
            }
            var running: Int32 = 0
            if let failure = CurlError.check(curl_multi_perform(multi, &running), "curl_multi_perform") {
                failAll(&active, failure)
            }
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active[easy]
                else { continue }
                let result = wo_curl_msg_result(message)
                var status = 0
                let response: APNSResponse
                if result != CURLE_OK {
                    response = .notAnswered(String(cString: curl_easy_strerror(result)))
                } else if let failure = CurlError.check(
                    wo_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status),
                    "reading CURLINFO_RESPONSE_CODE"
                ) {
                    response = .notAnswered(failure.description)
                } else {
                    response = .answered(status: status, reason: Self.reason(transfer.body))
                }
                finish(transfer, response, active: &active)
            }
            // Streams came free and more are waiting: start them before waiting on the sockets.
            if next < backlog.count, active.count < capacity { continue }
            if let failure = CurlError.check(curl_multi_poll(multi, nil, 0, 1_000, nil), "curl_multi_poll") {
                failAll(&active, failure)
                // Whatever broke polling may not have gone away: do not spin on it.
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Wakes the transfer thread from `curl_multi_poll`. A wakeup that fails (libcurl could not write to its socket
    /// pair) only delays the thread until its poll times out, a second at most, so it is not retried.
    private static func wake(_ multi: UnsafeMutableRawPointer) {
        _ = CurlError.check(curl_multi_wakeup(multi), "curl_multi_wakeup")
    }

    /// Answers every transfer in flight with `failure`: the multi handle failed under them.
    private func failAll(_ active: inout [UnsafeMutableRawPointer: Transfer], _ failure: CurlError) {
        for transfer in Array(active.values) {
            finish(transfer, .notAnswered(failure.description), active: &active)
        }
    }

    /// Sets up `transfer` on an easy handle and hands it to libcurl; throws which option or call failed.
    private func start(_ transfer: Transfer, on multi: UnsafeMutableRawPointer) throws -> UnsafeMutableRawPointer {
        let easy = try idle.popLast() ?? makeHandle()
        transfer.easy = easy
        do {
            try configure(easy, for: transfer)
            if let failure = CurlError.check(curl_multi_add_handle(multi, easy), "curl_multi_add_handle") {
                throw failure
            }
        } catch {
            cleanup(transfer)
            throw error
        }
        return easy
    }

    /// An easy handle with the options every push shares: HTTP/2 over TLS, the endpoint's trust and client
    /// identity, the body, the timeout and where the answer goes. Kept for reuse, so set once per handle.
    private func makeHandle() throws -> UnsafeMutableRawPointer {
        guard let easy = curl_easy_init() else { throw CurlError("libcurl: curl_easy_init failed") }
        func check(_ code: CURLcode, _ option: String) throws {
            if let failure = CurlError.check(code, "setting \(option)") {
                curl_easy_cleanup(easy)
                throw failure
            }
        }
        try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, pushBody), "CURLOPT_POSTFIELDS")
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, 2), "CURLOPT_POSTFIELDSIZE")
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "CURLOPT_HTTP_VERSION")
        // Wait for a multiplexed stream on the open connection rather than opening another one.
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1), "CURLOPT_PIPEWAIT")
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)), "CURLOPT_SSLVERSION")
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(wo_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout * 1_000)), "CURLOPT_TIMEOUT_MS")
        if let caFile = endpoint.caFile { try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO") }
        if let certificate = endpoint.clientCertificate {
            try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLCERT, certificate), "CURLOPT_SSLCERT")
            try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLCERTTYPE, "PEM"), "CURLOPT_SSLCERTTYPE")
        }
        if let key = endpoint.clientKey { try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLKEY, key), "CURLOPT_SSLKEY") }
        try check(
            wo_curl_easy_set_write_callback(easy) { data, size, count, user in
                guard let data, let user else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
                transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
                return size * count
            },
            "CURLOPT_WRITEFUNCTION"
        )
        return easy
    }

    /// What differs between pushes: the device's URL, the topic's headers, the transfer the answer goes to.
    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: Transfer) throws {
        func check(_ code: CURLcode, _ option: String) throws {
            if let failure = CurlError.check(code, "setting \(option)") { throw failure }
        }
        let request = transfer.request
        let headers: HeaderList
        if let current = headerLists[request.topic], current.providerToken == request.providerToken {
            headers = current
        } else {
            headers = try HeaderList(topic: request.topic, providerToken: request.providerToken)
            headerLists[request.topic] = headers
        }
        transfer.headers = headers
        try check(
            wo_curl_easy_setopt_ptr(easy, CURLOPT_URL, endpoint.baseURL + request.path),
            "CURLOPT_URL"
        )
        try check(wo_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headers.list), "CURLOPT_HTTPHEADER")
        try check(
            wo_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(transfer).toOpaque()),
            "CURLOPT_WRITEDATA"
        )
    }

    private func finish(
        _ transfer: Transfer,
        _ response: APNSResponse,
        active: inout [UnsafeMutableRawPointer: Transfer]
    ) {
        if let easy = transfer.easy {
            // Removing a handle libcurl knows fails only for a handle it does not know: nothing to undo then.
            if let multi { _ = curl_multi_remove_handle(multi, easy) }
            active.removeValue(forKey: easy)
        }
        cleanup(transfer)
        transfer.batch.answer(transfer.index, response)
    }

    private func cleanup(_ transfer: Transfer) {
        if let easy = transfer.easy {
            if idle.count < 1_000 { idle.append(easy) } else { curl_easy_cleanup(easy) }
        }
        transfer.easy = nil
        transfer.headers = nil
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
