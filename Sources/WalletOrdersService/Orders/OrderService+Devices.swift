import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersStore

/// What Wallet asks: registrations, the listing of changed orders, the order fetch and the log endpoint. Each runs
/// as a device request, ahead of merchant writes (`DevicePriority`).
extension OrderService {
    /// Registers a device for an order's updates, given the order's authentication token and the device's push
    /// token (hex, stored in lower case).
    public func register(
        device: String,
        type: String,
        id: String,
        token: String?,
        pushToken: String?
    ) async throws
        -> RegistrationOutcome
    {
        try await priority.device {
            try await registerDevice(device: device, type: type, id: id, token: token, pushToken: pushToken)
        }
    }

    private func registerDevice(
        device: String,
        type: String,
        id: String,
        token: String?,
        pushToken: String?
    )
        async throws -> RegistrationOutcome
    {
        _ = try await authorize(type: type, id: id, token: token)
        // ASCII hex only: Character.isHexDigit takes fullwidth digits too, which APNs would never accept.
        guard let pushToken, !pushToken.isEmpty, pushToken.utf8.count <= Self.maxPushTokenLength,
            pushToken.utf8.allSatisfy(Self.isASCIIHexDigit)
        else {
            throw OrderServiceError.invalidOrder(
                "the body must be {\"pushToken\": \"<hex>\"}",
                problems: [
                    OrderProblem(path: "pushToken", message: "must be the device's hex push token")
                ]
            )
        }
        do {
            return try await store.registrations.register(
                device: device,
                type: type,
                id: id,
                pushToken: pushToken.lowercased(),
                maxDevices: maxDevicesPerOrder,
                firstDevice: .addedToWallet
            )
        } catch StoreError.tooManyDevices {
            counters.registrationRefused()
            throw OrderServiceError.tooManyDevices(limit: maxDevicesPerOrder ?? 0)
        }
    }

    /// The longest push token accepted: APNs' are 32 bytes (64 hex digits) today, with room to grow.
    static let maxPushTokenLength = 512

    private static func isASCIIHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    /// Removes a device's registration, given the order's authentication token.
    public func unregister(device: String, type: String, id: String, token: String?) async throws {
        try await priority.device {
            _ = try await authorize(type: type, id: id, token: token)
            try await store.registrations.unregister(device: device, type: type, id: id, lastDevice: .removedFromWallet)
        }
    }

    /// The device's orders of `type` changed since `tag`; nil when it is registered for none.
    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        try await priority.device { try await store.registrations.changedOrders(device: device, type: type, since: tag) }
    }

    /// What a device holding the order's authentication token gets: "not modified" when `condition` says it holds
    /// the current version, decided from the order's head alone, and otherwise the head with the package.
    ///
    /// From the fetch cache when it holds the order; otherwise one store read gives the head and the stored seal,
    /// and only a device that needs the package makes the service read the order and assemble it (or sign it again).
    public func fetch(
        type: String,
        id: String,
        token: String?,
        unless condition: FetchCondition = .none
    ) async throws
        -> FetchResult
    {
        try await priority.device { try await fetchPackage(type: type, id: id, token: token, unless: condition) }
    }

    private func fetchPackage(
        type: String,
        id: String,
        token: String?,
        unless condition: FetchCondition
    ) async throws
        -> FetchResult
    {
        // A wrong token goes on to the store read, as an order the cache does not hold (or that does not exist)
        // does: timing tells nothing of which orders exist.
        if let entry = cache?.entry(type: type, id: id), let head = try? Self.check(token, entry.head) {
            if !condition.isNotModified(head) {
                counters.packageCacheHit()
                return .modified(FetchedPackage(head: head, package: entry.package))
            }
            // Not modified, by what this instance holds. When other instances write the same database, their newest
            // version reaches this cache a moment after it commits: the store's head decides a 304 then, so that a
            // device that has just listed the order as changed is never told it did not change.
            if !store.lifecycle.isShared { return .notModified(head) }
        }
        // Taken before the read: a version committed after it cannot be overwritten by what the read returns.
        let ticket = cache?.ticket()
        counters.fetchReadStore()
        let fetched: FetchedOrder?
        do {
            fetched = try await store.orders.orderForFetch(type: type, id: id)
        } catch StoreError.unavailable(let reason) {
            // The database is out of reach: a device is better served the version this instance last knew than an
            // error (Wallet asks again with the next push); once the store answers, the cache is cleared.
            guard let entry = cache?.heldEntry(type: type, id: id), let head = try? Self.check(token, entry.head) else {
                throw StoreError.unavailable(reason)
            }
            if condition.isNotModified(head) { return .notModified(head) }
            return .modified(FetchedPackage(head: head, package: entry.package))
        }
        let head = try Self.check(token, fetched?.head)
        if condition.isNotModified(head) { return .notModified(head) }
        return .modified(
            try await complete(
                FetchedOrder(head: head, package: fetched?.package),
                type: type,
                id: id,
                ticket: ticket
            )
        )
    }

    /// Stores what a device sent to the log endpoint within `logLimits`, and reports what became of it. Never
    /// throws: Wallet stops pushing to a service whose log endpoint fails, so a store failure drops the messages
    /// (and says so in the report) instead.
    public func appendLogs(_ messages: [String], remoteAddress: String?) async -> DeviceLogReport {
        await priority.device { await storeLogs(messages, remoteAddress: remoteAddress) }
    }

    private func storeLogs(_ messages: [String], remoteAddress: String?) async -> DeviceLogReport {
        var report = DeviceLogReport()
        report.droppedOverRequestCap = max(0, messages.count - logLimits.maxEntriesPerRequest)
        let kept = messages.prefix(logLimits.maxEntriesPerRequest).map(Self.storable).map { message in
            guard message.utf8.count > logLimits.maxEntryBytes else { return message }
            report.truncated += 1
            return Self.prefix(of: message, bytes: logLimits.maxEntryBytes)
        }
        if !kept.isEmpty {
            do {
                let outcome = try await store.logs.appendLogs(
                    kept,
                    merchants: try await merchantsNamed(in: kept),
                    remoteAddress: remoteAddress,
                    maxBytes: logLimits.maxTotalBytes
                )
                report.stored = outcome.stored
                report.folded = outcome.folded
                report.evicted = outcome.evicted
            } catch {
                report.droppedStoreFailed = kept.count
            }
        }
        counters.deviceLogs(report)
        return report
    }

    /// A log message as it can be stored: each NUL becomes U+2400 SYMBOL FOR NULL (␀), the character made to show
    /// one. GRDB binds text to SQLite up to its first NUL, so the rest of the message was lost, and PostgreSQL's
    /// text refuses a NUL, so every message of the request was dropped.
    static func storable(_ message: String) -> String {
        guard message.utf8.contains(0) else { return message }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: message.unicodeScalars.lazy.map { $0 == "\u{0}" ? "\u{2400}" : $0 })
        return String(scalars)
    }

    /// The longest prefix of `text` that is whole characters and at most `bytes` UTF-8 bytes.
    static func prefix(of text: String, bytes: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            if used + size > bytes { break }
            used += size
            end = next
        }
        return String(text[..<end])
    }

    /// The order's head when `token` is its authentication token. Unknown orders and wrong tokens are refused
    /// alike, so a device cannot learn which orders exist.
    func authorize(type: String, id: String, token: String?) async throws -> OrderHead {
        try Self.check(token, try await store.orders.orderHead(type: type, id: id))
    }

    static func check(_ token: String?, _ head: OrderHead?) throws -> OrderHead {
        guard let head else {
            // Compare anyway, so an unknown order takes as long to refuse as a wrong token.
            _ = ConstantTime.equals(token ?? "", String(repeating: "0", count: 64))
            throw OrderServiceError.unauthorized
        }
        guard let token, ConstantTime.equals(token, head.authenticationToken) else {
            throw OrderServiceError.unauthorized
        }
        return head
    }

    /// The merchant each message names an order of, for the messages that name a platform merchant's: Wallet writes
    /// order identifiers into its messages, as they are (`acme:1001`) or percent-encoded in a URL (`acme%3A1001`).
    func merchantsNamed(in messages: [String]) async throws -> [String: Int64] {
        let slugs = try await merchants.platformSlugs()
        guard !slugs.isEmpty else { return [:] }
        var named: [String: Int64] = [:]
        for message in messages where named[message] == nil {
            if let merchant = Self.merchantNamed(in: message, slugs: slugs) { named[message] = merchant }
        }
        return named
    }

    /// The first platform merchant whose namespace (`slug:` or `slug%3A`) starts a word of `message`.
    static func merchantNamed(in message: String, slugs: [String: Int64]) -> Int64? {
        let bytes = Array(message.utf8)
        var start = 0
        while start < bytes.count {
            // A slug is lower-case letters, digits and hyphens: read one such run, then look at what follows it.
            var end = start
            while end < bytes.count, Self.isSlugByte(bytes[end]) { end += 1 }
            if end > start, start == 0 || !Self.isSlugByte(bytes[start - 1]) {
                let followedByColon = end < bytes.count && bytes[end] == UInt8(ascii: ":")
                let followedByEncodedColon =
                    end + 2 < bytes.count && bytes[end] == UInt8(ascii: "%") && bytes[end + 1] == UInt8(ascii: "3")
                    && (bytes[end + 2] | 0x20) == UInt8(ascii: "a")
                if followedByColon || followedByEncodedColon,
                    let merchant = slugs[String(decoding: bytes[start..<end], as: UTF8.self)]
                {
                    return merchant
                }
            }
            start = end + 1
        }
        return nil
    }

    private static func isSlugByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-")
    }
}
