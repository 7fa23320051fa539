import CCurl

/// libcurl's process-wide state: set up once, before the first handle is made, and checked. It is never torn down:
/// `curl_global_cleanup` may run only when no other thread uses libcurl, which a server cannot know, so the process
/// keeps it until it exits.
public enum CurlLibrary {
    /// `curl_global_init`'s answer. Swift runs a static's initializer once, on whichever thread asks first, which is
    /// what libcurl requires of its global set-up (it is not thread-safe).
    private static let initialization = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Sets up libcurl for this process the first time it is called; throws what failed, every time, when that did.
    public static func initialize() throws(CurlError) {
        try CurlError.check(initialization, "curl_global_init")
    }

    /// The libcurl this process loaded: its version and what it was built with.
    public static func version() throws(CurlError) -> Version {
        guard let info = wo_curl_version_info() else { throw CurlError("libcurl: curl_version_info answered nothing") }
        return Version(
            number: info.pointee.version.map { String(cString: $0) } ?? "?",
            http2: info.pointee.features & CURL_VERSION_HTTP2 != 0,
            tls: info.pointee.features & CURL_VERSION_SSL != 0
        )
    }

    /// A libcurl's version, and whether it speaks what this service needs of it.
    public struct Version: Sendable, Equatable {
        /// The version, e.g. "7.88.1".
        public let number: String
        /// Built with HTTP/2 (nghttp2).
        public let http2: Bool
        /// Built with TLS.
        public let tls: Bool
    }
}
