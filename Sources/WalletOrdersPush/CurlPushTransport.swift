import CCurl
import Foundation

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
    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var queued: [Transfer] = []
    private var stopping = false
    private var thread: Thread?
    /// Easy handles kept for reuse once their transfer is done; touched only by the transfer thread.
    private var idle: [UnsafeMutableRawPointer] = []
    private let stopped = DispatchSemaphore(value: 0)

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// A transport to `endpoint`, with at most `connections` connections and `streamsPerConnection` concurrent
    /// requests on each.
    public init(endpoint: APNSEndpoint, connections: Int = 1, streamsPerConnection: Int = 100, timeout: TimeInterval = 15) {
        Self.globalInit
        self.endpoint = endpoint
        self.timeout = timeout
        capacity = max(1, connections * streamsPerConnection)
        multi = curl_multi_init()
        _ = wo_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = wo_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections)
        _ = wo_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streamsPerConnection)
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "wallet-orders-apns"
        self.thread = thread
        thread.start()
    }

    /// Stops the transfer thread; requests still in flight answer status 0.
    public func shutdown() {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        curl_multi_wakeup(multi)
        stopped.wait()
    }

    deinit {
        shutdown()
        for easy in idle { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
    }

    public func send(_ requests: [PushRequest]) async -> [PushResponse] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let batch = Batch(count: requests.count, continuation: continuation)
            let transfers = requests.enumerated().map { Transfer(request: $1, batch: batch, index: $0) }
            let accepted = lock.withLock { () -> Bool in
                guard !stopping else { return false }
                queued.append(contentsOf: transfers)
                return true
            }
            guard accepted else {
                continuation.resume(returning: requests.map { _ in
                    PushResponse(status: 0, reason: "the push transport is shut down")
                })
                return
            }
            curl_multi_wakeup(multi)
        }
    }

    /// The requests of one `send` call: answered together once the last of them is done. Touched only by the
    /// transfer thread once queued.
    private final class Batch {
        var responses: [PushResponse]
        var remaining: Int
        let continuation: CheckedContinuation<[PushResponse], Never>

        init(count: Int, continuation: CheckedContinuation<[PushResponse], Never>) {
            responses = Array(repeating: PushResponse(status: 0, reason: nil), count: count)
            remaining = count
            self.continuation = continuation
        }

        func answer(_ index: Int, _ response: PushResponse) {
            responses[index] = response
            remaining -= 1
            if remaining == 0 { continuation.resume(returning: responses) }
        }
    }

    /// One request on its way: the easy handle, its header list and what has come back.
    private final class Transfer {
        let request: PushRequest
        let batch: Batch
        let index: Int
        var easy: UnsafeMutableRawPointer?
        var headers: UnsafeMutablePointer<curl_slist>?
        var body = Data()

        init(request: PushRequest, batch: Batch, index: Int) {
            self.request = request
            self.batch = batch
            self.index = index
        }
    }

    private func loop() {
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
                    finish(transfer, PushResponse(status: 0, reason: "the push transport shut down"), active: &active)
                }
                stopped.signal()
                return
            }
            backlog.append(contentsOf: incoming)
            while active.count < capacity, next < backlog.count {
                let transfer = backlog[next]
                next += 1
                if let easy = start(transfer) {
                    active[easy] = transfer
                } else {
                    transfer.batch.answer(transfer.index, PushResponse(status: 0, reason: "libcurl could not start the request"))
                }
            }
            if next == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                next = 0
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let transfer = active[easy] else { continue }
                let result = wo_curl_msg_result(message)
                var status = 0
                _ = wo_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                let response: PushResponse
                if result == CURLE_OK {
                    response = PushResponse(status: status, reason: Self.reason(transfer.body))
                } else {
                    response = PushResponse(status: 0, reason: String(cString: curl_easy_strerror(result)))
                }
                finish(transfer, response, active: &active)
            }
            // Streams came free and more are waiting: start them before waiting on the sockets.
            if next < backlog.count, active.count < capacity { continue }
            curl_multi_poll(multi, nil, 0, 1_000, nil)
        }
    }

    private func start(_ transfer: Transfer) -> UnsafeMutableRawPointer? {
        let reused = idle.popLast()
        if let reused { curl_easy_reset(reused) }
        guard let easy = reused ?? curl_easy_init() else { return nil }
        transfer.easy = easy
        let url = "\(endpoint.baseURL)/3/device/\(transfer.request.deviceToken)"
        var lines = [
            "apns-topic: \(transfer.request.topic)",
            "apns-push-type: background",
            "apns-priority: 5",
            "content-type: application/json",
        ]
        if let token = transfer.request.providerToken { lines.append("authorization: bearer \(token)") }
        for line in lines { transfer.headers = curl_slist_append(transfer.headers, line) }
        _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_URL, url)
        _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, transfer.headers)
        _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, "{}")
        _ = wo_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Wait for a multiplexed stream on the open connection rather than opening another one.
        _ = wo_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = wo_curl_easy_setopt_long(easy, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        _ = wo_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = wo_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout * 1_000))
        if let caFile = endpoint.caFile { _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_CAINFO, caFile) }
        if let certificate = endpoint.clientCertificate {
            _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLCERT, certificate)
            _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLCERTTYPE, "PEM")
        }
        if let key = endpoint.clientKey { _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_SSLKEY, key) }
        _ = wo_curl_easy_set_write_callback(easy) { data, size, count, user in
            guard let data, let user else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
            return size * count
        }
        _ = wo_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(transfer).toOpaque())
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            cleanup(transfer)
            return nil
        }
        return easy
    }

    private func finish(_ transfer: Transfer, _ response: PushResponse,
                        active: inout [UnsafeMutableRawPointer: Transfer]) {
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy)
            active.removeValue(forKey: easy)
        }
        cleanup(transfer)
        transfer.batch.answer(transfer.index, response)
    }

    private func cleanup(_ transfer: Transfer) {
        if let easy = transfer.easy {
            if idle.count < 1_000 { idle.append(easy) } else { curl_easy_cleanup(easy) }
        }
        if let headers = transfer.headers { curl_slist_free_all(headers) }
        transfer.easy = nil
        transfer.headers = nil
    }

    /// APNs' `{"reason": "…"}`, when the body has one.
    private static func reason(_ body: Data) -> String? {
        guard !body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }
}
