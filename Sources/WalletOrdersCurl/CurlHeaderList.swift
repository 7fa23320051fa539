import CCurl

/// Request headers (`name: value` lines) as the list libcurl sends. Never changed once made; every handle that
/// sends it holds it, and it is freed once none does.
public final class CurlHeaderList {
    /// nil for no lines.
    let list: UnsafeMutablePointer<curl_slist>?

    /// The list of `lines`; throws when libcurl cannot add one (it is out of memory).
    public init(_ lines: [String]) throws(CurlError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError("libcurl: curl_slist_append failed for the request headers")
            }
            list = longer
        }
        self.list = list
    }

    deinit { curl_slist_free_all(list) }
}
