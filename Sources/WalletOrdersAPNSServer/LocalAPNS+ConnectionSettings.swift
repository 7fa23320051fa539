import NIOHTTP2

extension LocalAPNS {
    /// The HTTP/2 settings the stand-in sends in its first SETTINGS frame.
    public struct ConnectionSettings: Sendable, Equatable {
        /// How many streams a client may have open at once on one connection.
        public var maxConcurrentStreams: Int
        /// The largest header block a request may carry, uncompressed.
        public var maxHeaderListSize: Int
        /// Each stream's initial flow-control window.
        public var initialWindowSize: Int
        public var maxFrameSize: Int
        public var headerTableSize: Int

        /// Settings with every value given.
        public init(
            maxConcurrentStreams: Int,
            maxHeaderListSize: Int,
            initialWindowSize: Int = 65_535,
            maxFrameSize: Int = 16_384,
            headerTableSize: Int = 4_096
        ) {
            self.maxConcurrentStreams = maxConcurrentStreams
            self.maxHeaderListSize = maxHeaderListSize
            self.initialWindowSize = initialWindowSize
            self.maxFrameSize = maxFrameSize
            self.headerTableSize = headerTableSize
        }

        /// What APNs advertises once a provider token is accepted: HEADER_TABLE_SIZE 4096, MAX_CONCURRENT_STREAMS
        /// in the hundreds to 1,000 (clients have logged 500, 1,000 and 1,500 over the years), INITIAL_WINDOW_SIZE
        /// 65535, MAX_FRAME_SIZE 16384, MAX_HEADER_LIST_SIZE 8000.
        public static let apns = ConnectionSettings(maxConcurrentStreams: 1_000, maxHeaderListSize: 8_000)

        var http2Settings: HTTP2Settings {
            [
                HTTP2Setting(parameter: .headerTableSize, value: headerTableSize),
                HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
                HTTP2Setting(parameter: .initialWindowSize, value: initialWindowSize),
                HTTP2Setting(parameter: .maxFrameSize, value: maxFrameSize),
                HTTP2Setting(parameter: .maxHeaderListSize, value: maxHeaderListSize),
            ]
        }
    }
}
