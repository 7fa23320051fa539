import CCurl
import Foundation

/// One libcurl easy handle, owned: a transfer's options, and what comes back. Freed with this object. A handle is
/// used by one thread at a time and kept for the next transfer, so that its connections are reused; the options it
/// was given stay set until they are set again.
public final class CurlEasy {
    /// Sets a handle up for a transfer (or for every transfer it will carry); throws which option libcurl refused.
    public typealias Setup = @Sendable (CurlEasy) throws(CurlError) -> Void

    let handle: UnsafeMutableRawPointer
    /// The header list the handle points at, held as long as it does.
    private var headers: CurlHeaderList?
    /// Whether the answer's body is kept (or only counted), and how much of it may come before the transfer is cut.
    private var keepsBody = true
    private var bodyLimit = Int.max
    /// What the current transfer received: the body as kept, and how many bytes came.
    private var body = Data()
    private var received = 0
    /// Judges every address before a connection to it opens: nil to allow it, or why not.
    private var addressCheck: ((_ address: [UInt8]) -> String?)?
    /// Why the current transfer's connection was refused, if `addressCheck` refused one.
    var refusal: String?

    /// A new handle; throws when libcurl cannot be set up or cannot make one.
    public init() throws(CurlError) {
        try CurlLibrary.initialize()
        guard let handle = curl_easy_init() else { throw CurlError("libcurl: curl_easy_init failed") }
        self.handle = handle
        // The callbacks' data is this object, which outlives its handle. (Thrown from here on, deinit frees the handle.)
        try CurlError.check(wo_curl_easy_set_write_callback(handle, Self.write), "setting CURLOPT_WRITEFUNCTION")
        try CurlError.check(wo_curl_easy_set_write_data(handle, Unmanaged.passUnretained(self).toOpaque()), "setting CURLOPT_WRITEDATA")
    }

    deinit {
        // Before `headers` is released: the handle may point at it until it is gone.
        curl_easy_cleanup(handle)
    }

    /// Sets each of `options` in turn; throws which one libcurl refused.
    public func set(_ options: CurlOption...) throws(CurlError) {
        for option in options { try set(option) }
    }

    /// Sets `option`; throws when libcurl refuses it.
    public func set(_ option: CurlOption) throws(CurlError) {
        switch option {
        case .url(let url): try set(CURLOPT_URL, text: url, "CURLOPT_URL")
        case .postBody(let body):
            try set(CURLOPT_POST, 1, "CURLOPT_POST")
            try set(CURLOPT_POSTFIELDSIZE, body.count, "CURLOPT_POSTFIELDSIZE")
            let code = body.withUnsafeBytes { bytes in
                // An empty body still needs a pointer: libcurl reads a null one as "no body set".
                wo_curl_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))
            }
            try CurlError.check(code, "setting CURLOPT_COPYPOSTFIELDS")
        case .headers(let list):
            try CurlError.check(wo_curl_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, list?.list), "setting CURLOPT_HTTPHEADER")
            headers = list
        case .http2OverTLS: try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS), "CURLOPT_HTTP_VERSION")
        case .waitForMultiplexing(let wait): try set(CURLOPT_PIPEWAIT, wait ? 1 : 0, "CURLOPT_PIPEWAIT")
        case .minimumTLS12: try set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2), "CURLOPT_SSLVERSION")
        case .noSignals: try set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        case .timeout(let seconds): try set(CURLOPT_TIMEOUT_MS, Int(seconds * 1_000), "CURLOPT_TIMEOUT_MS")
        case .connectTimeout(let seconds): try set(CURLOPT_CONNECTTIMEOUT_MS, Int(seconds * 1_000), "CURLOPT_CONNECTTIMEOUT_MS")
        case .caFile(let path): try set(CURLOPT_CAINFO, text: path, "CURLOPT_CAINFO")
        case .clientCertificate(let path):
            try set(CURLOPT_SSLCERT, text: path, "CURLOPT_SSLCERT")
            try set(CURLOPT_SSLCERTTYPE, text: "PEM", "CURLOPT_SSLCERTTYPE")
        case .clientKey(let path): try set(CURLOPT_SSLKEY, text: path, "CURLOPT_SSLKEY")
        case .protocols(let schemes): try set(CURLOPT_PROTOCOLS_STR, text: schemes, "CURLOPT_PROTOCOLS_STR")
        case .proxy(let proxy): try set(CURLOPT_PROXY, text: proxy, "CURLOPT_PROXY")
        case .followRedirects(let follow): try set(CURLOPT_FOLLOWLOCATION, follow ? 1 : 0, "CURLOPT_FOLLOWLOCATION")
        }
    }

    /// Keeps each answer's body (`keep`), or only counts it, and cuts the transfer once more than `limit` bytes of it
    /// came (the transfer then fails, though its status is known).
    public func receive(keeping keep: Bool, limit: Int = .max) {
        keepsBody = keep
        bodyLimit = limit
    }

    /// Refuses connections to addresses `check` answers a reason for; it is given 4 bytes for IPv4 and 16 for IPv6
    /// (addresses of any other family are refused while a check is set). nil: connect anywhere.
    public func checkAddresses(_ check: ((_ address: [UInt8]) -> String?)?) throws(CurlError) {
        addressCheck = check
        let code =
            check == nil
            ? wo_curl_easy_set_opensocket(handle, nil, nil)
            : wo_curl_easy_set_opensocket(handle, Self.openSocket, Unmanaged.passUnretained(self).toOpaque())
        try CurlError.check(code, "setting CURLOPT_OPENSOCKETFUNCTION")
    }

    /// Performs the transfer on this thread, which waits until it is done; answers what came of it.
    public func perform() -> CurlResult {
        begin()
        return finish(curl_easy_perform(handle))
    }

    /// Forgets what the last transfer received: a new one starts.
    func begin() {
        body = Data()
        received = 0
        refusal = nil
    }

    /// What came of the transfer that ended with `code`: the status (read even when the transfer failed midway), why
    /// it failed, and the body kept.
    func finish(_ code: CURLcode) -> CurlResult {
        var failure = code == CURLE_OK ? nil : CurlError(refusal ?? CurlError.reason(code))
        var status = 0
        do {
            try CurlError.check(wo_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), "reading CURLINFO_RESPONSE_CODE")
        } catch {
            failure = failure ?? error
            status = 0
        }
        let kept = body
        body = Data()
        return CurlResult(status: status > 0 ? status : nil, failure: failure, body: kept)
    }

    /// Takes `count` bytes of the answer's body: answers how many were taken, fewer to cut the transfer.
    func take(_ data: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        received += count
        guard received <= bodyLimit else { return 0 }
        if keepsBody, let data { body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count) }
        return count
    }

    /// Why a connection to `address` (4 or 16 bytes, nil for another family) must not open; nil when it may.
    func reasonToRefuse(_ address: [UInt8]?) -> String? {
        guard let addressCheck else { return nil }
        guard let address else { return "refused to connect to an address that is neither IPv4 nor IPv6" }
        return addressCheck(address)
    }

    private func set(_ option: CURLoption, _ value: Int, _ name: @autoclosure () -> String) throws(CurlError) {
        try CurlError.check(wo_curl_easy_setopt_long(handle, option, value), "setting \(name())")
    }

    private func set(_ option: CURLoption, text: String, _ name: @autoclosure () -> String) throws(CurlError) {
        try CurlError.check(wo_curl_easy_setopt_ptr(handle, option, text), "setting \(name())")
    }
}
