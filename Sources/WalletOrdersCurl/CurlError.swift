import CCurl

/// A libcurl call that failed, with libcurl's own words for why.
public struct CurlError: Error, Equatable, CustomStringConvertible {
    /// What failed and why, e.g. "libcurl: setting CURLOPT_URL failed: Out of memory".
    public let description: String

    /// An error that says `description`.
    public init(_ description: String) {
        self.description = description
    }

    /// Throws unless an easy-interface call answered `CURLE_OK`: every such code is judged here. `call` names what
    /// was asked ("setting CURLOPT_URL"); it is built only for the error.
    static func check(_ code: CURLcode, _ call: @autoclosure () -> String) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError("libcurl: \(call()) failed: \(reason(code))") }
    }

    /// Throws unless a multi-interface call answered `CURLM_OK`.
    static func check(_ code: CURLMcode, _ call: @autoclosure () -> String) throws(CurlError) {
        guard code == CURLM_OK else {
            throw CurlError("libcurl: \(call()) failed: \(String(cString: curl_multi_strerror(code)))")
        }
    }

    /// Why a transfer that ended with `code` did not complete, in libcurl's words ("Couldn't connect to server").
    static func reason(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
