extension OrderService {
    /// Hooks for counting what the service does (for metrics).
    public struct Counters: Sendable {
        /// A package was built and signed for a write.
        public var packageBuilt: @Sendable () -> Void
        /// A package was served without signing: from the fetch cache, or assembled again from its stored seal.
        public var packageCacheHit: @Sendable () -> Void
        /// A package was assembled again from its stored seal (a fetch the cache could not answer).
        public var packageAssembled: @Sendable () -> Void
        /// A fetch signed the order's current version again: no seal was stored for it, or the template or the
        /// certificates changed since it was made.
        public var packageResigned: @Sendable () -> Void
        /// A request's log messages were kept or dropped.
        public var deviceLogs: @Sendable (DeviceLogReport) -> Void
        /// A fetch read the store: the fetch cache was off or did not hold the order.
        public var fetchReadStore: @Sendable () -> Void
        /// A merchant write waited for its turn (see `DevicePriority`).
        public var merchantWriteWaited: @Sendable () -> Void
        /// A new device's registration was refused: its order has `maxDevicesPerOrder` devices already.
        public var registrationRefused: @Sendable () -> Void

        public init(
            packageBuilt: @escaping @Sendable () -> Void = {},
            packageCacheHit: @escaping @Sendable () -> Void = {},
            packageAssembled: @escaping @Sendable () -> Void = {},
            packageResigned: @escaping @Sendable () -> Void = {},
            deviceLogs: @escaping @Sendable (DeviceLogReport) -> Void = { _ in },
            fetchReadStore: @escaping @Sendable () -> Void = {},
            merchantWriteWaited: @escaping @Sendable () -> Void = {},
            registrationRefused: @escaping @Sendable () -> Void = {}
        ) {
            self.packageBuilt = packageBuilt
            self.packageCacheHit = packageCacheHit
            self.packageAssembled = packageAssembled
            self.packageResigned = packageResigned
            self.deviceLogs = deviceLogs
            self.fetchReadStore = fetchReadStore
            self.merchantWriteWaited = merchantWriteWaited
            self.registrationRefused = registrationRefused
        }
    }
}
