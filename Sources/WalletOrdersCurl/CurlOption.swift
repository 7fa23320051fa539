import Foundation

/// An option of a transfer, as a Swift value; `CurlEasy.set` hands it to libcurl, which copies what it needs.
public enum CurlOption {
    /// The URL to request.
    case url(String)
    /// POST `body`, copied by libcurl.
    case postBody(Data)
    /// The request headers; nil for none beside libcurl's own. The handle holds the list while it points at it.
    case headers(CurlHeaderList?)
    /// HTTP/2 over TLS (negotiated with ALPN), HTTP/1.1 otherwise.
    case http2OverTLS
    /// Wait for a stream on a connection that is opening or full rather than open another one.
    case waitForMultiplexing(Bool)
    /// TLS 1.2 at least.
    case minimumTLS12
    /// No signals: transfers run on threads of this process that must not be interrupted (nor use `alarm()`).
    case noSignals
    /// The most a whole transfer may take.
    case timeout(TimeInterval)
    /// The most connecting may take.
    case connectTimeout(TimeInterval)
    /// A CA file to trust instead of the system's.
    case caFile(String)
    /// A TLS client certificate, a PEM file.
    case clientCertificate(String)
    /// The TLS client certificate's key, a PEM file.
    case clientKey(String)
    /// The schemes a URL may use, e.g. "http,https".
    case protocols(String)
    /// The proxy to go through; "" for none, whatever the environment says.
    case proxy(String)
    /// Whether to follow redirects.
    case followRedirects(Bool)
}
