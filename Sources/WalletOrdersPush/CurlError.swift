import CCurl

/// A libcurl call that failed, with libcurl's own words for why.
public struct CurlError: Error, Equatable, CustomStringConvertible {
    /// What failed and why, e.g. "libcurl: setting CURLOPT_URL failed: Out of memory".
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// The error for an easy-interface call that answered `code`; nil for `CURLE_OK`.
    static func check(_ code: CURLcode, _ call: String) -> CurlError? {
        guard code != CURLE_OK else { return nil }
        return CurlError("libcurl: \(call) failed: \(String(cString: curl_easy_strerror(code)))")
    }

    /// The error for a multi-interface call that answered `code`; nil for `CURLM_OK`.
    static func check(_ code: CURLMcode, _ call: String) -> CurlError? {
        guard code != CURLM_OK else { return nil }
        return CurlError("libcurl: \(call) failed: \(String(cString: curl_multi_strerror(code)))")
    }
}
