import CCurl

/// One libcurl multi handle, owned, and the easy handles it carries, held while it does. One thread drives it; the
/// only call another thread may make is `wake()`.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var carried: [UnsafeMutableRawPointer: CurlEasy] = [:]

    /// A multi handle that multiplexes transfers over HTTP/2, with at most `connections` connections to a host and
    /// `streamsPerConnection` concurrent transfers on each; throws what libcurl refused.
    init(connections: Int, streamsPerConnection: Int) throws(CurlError) {
        try CurlLibrary.initialize()
        guard let handle = curl_multi_init() else { throw CurlError("libcurl: curl_multi_init failed") }
        self.handle = handle
        // Thrown from here on, deinit frees the handle.
        try CurlError.check(wo_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX), "setting CURLMOPT_PIPELINING")
        try CurlError.check(
            wo_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, connections),
            "setting CURLMOPT_MAX_HOST_CONNECTIONS"
        )
        try CurlError.check(
            wo_curl_multi_setopt_long(handle, CURLMOPT_MAX_CONCURRENT_STREAMS, streamsPerConnection),
            "setting CURLMOPT_MAX_CONCURRENT_STREAMS"
        )
    }

    deinit {
        // libcurl's order: every easy handle out, then the multi handle; the easy handles are freed after this, as
        // `carried` is released.
        for easy in carried.keys { try? CurlError.check(curl_multi_remove_handle(handle, easy), "curl_multi_remove_handle") }
        try? CurlError.check(curl_multi_cleanup(handle), "curl_multi_cleanup")
    }

    /// How many transfers are under way.
    var count: Int { carried.count }

    /// Starts `easy`'s transfer, set up beforehand.
    func add(_ easy: CurlEasy) throws(CurlError) {
        easy.begin()
        try CurlError.check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
        carried[easy.handle] = easy
    }

    /// Takes `easy` out, its transfer done or given up.
    func remove(_ easy: CurlEasy) {
        guard carried.removeValue(forKey: easy.handle) != nil else { return }
        // Fails only for a handle libcurl does not carry: nothing to undo then.
        try? CurlError.check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
    }

    /// Every handle under way, taken out: the multi handle failed under them, or they are given up.
    func removeAll() -> [CurlEasy] {
        let all = Array(carried.values)
        for easy in all { remove(easy) }
        return all
    }

    /// Moves every transfer on as far as it can go without waiting.
    func perform() throws(CurlError) {
        var running: Int32 = 0
        try CurlError.check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// The next transfer that ended, taken out, and what came of it; nil when no other has ended.
    func nextDone() -> (easy: CurlEasy, result: CurlResult)? {
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let pointer = message.pointee.easy_handle, let easy = carried[pointer]
            else { continue }
            // The message lives only until its handle is removed: read first.
            let result = easy.finish(wo_curl_msg_result(message))
            remove(easy)
            return (easy, result)
        }
        return nil
    }

    /// Waits until a transfer can move on, `wake()` is called, or `milliseconds` have passed.
    func poll(milliseconds: Int32) throws(CurlError) {
        try CurlError.check(curl_multi_poll(handle, nil, 0, milliseconds, nil), "curl_multi_poll")
    }

    /// Ends the driving thread's `poll` at once. libcurl documents `curl_multi_wakeup` as callable from any thread.
    func wake() throws(CurlError) {
        try CurlError.check(curl_multi_wakeup(handle), "curl_multi_wakeup")
    }
}
