import Foundation

/// Where a push stands in the outbox.
public enum PushStatus: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Waiting to be sent, at `nextAttemptAt` or later.
    case pending
    /// Claimed by an instance that is sending it now.
    case sending
    /// APNs accepted it.
    case delivered
    /// Given up, with APNs' reason or the last error.
    case failed
}

/// A push waiting in, or gone through, the outbox. Its push token stays out: the device's registration holds it.
public struct PushRecord: Sendable, Codable, Equatable {
    public let id: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let deviceIdentifier: String
    public let status: PushStatus
    public let attempts: Int
    public let nextAttemptAt: Date
    public let lastError: String?
    public let createdAt: Date
    public let updatedAt: Date

    public init(
        id: Int64,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        deviceIdentifier: String,
        status: PushStatus,
        attempts: Int,
        nextAttemptAt: Date,
        lastError: String?,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.deviceIdentifier = deviceIdentifier
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Which pushes a listing shows.
public struct PushFilter: Sendable {
    public var status: PushStatus?
    public var type: String?
    public var id: String?
    /// Only the pushes for one merchant's orders.
    public var merchant: Int64?

    public init(status: PushStatus? = nil, type: String? = nil, id: String? = nil, merchant: Int64? = nil) {
        self.status = status
        self.type = type
        self.id = id
        self.merchant = merchant
    }
}

/// Who claims work from an outbox (pushes or webhook deliveries), and for how long the claim holds unless renewed.
/// The store reads the lease's end from its own clock, so that instances with different wall clocks agree on it.
public struct OutboxClaim: Sendable, Equatable {
    /// The worker that sends them: unique per process.
    public let owner: String
    /// How long the claim holds, by the store's clock, unless renewed.
    public let lease: TimeInterval

    public init(owner: String, lease: TimeInterval) {
        self.owner = owner
        self.lease = lease
    }

    /// A new owner's name, unique per worker: `host:pid:` and, when given, `role:`, then 8 random hex digits.
    public static func newOwner(role: String? = nil) -> String {
        let process = ProcessInfo.processInfo
        let random = UUID().uuidString.prefix(8).lowercased()
        return [process.hostName, String(process.processIdentifier), role, random].compactMap { $0 }.joined(separator: ":")
    }
}

/// A push taken from the outbox to be sent.
public struct PushJob: Sendable, Equatable {
    public let id: Int64
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let deviceIdentifier: String
    public let pushToken: String
    /// Attempts so far, this one included.
    public let attempts: Int

    public init(
        id: Int64,
        orderTypeIdentifier: String,
        orderIdentifier: String,
        deviceIdentifier: String,
        pushToken: String,
        attempts: Int
    ) {
        self.id = id
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.deviceIdentifier = deviceIdentifier
        self.pushToken = pushToken
        self.attempts = attempts
    }
}

/// What became of a push, as the push lane decided it; the store records it as it is.
public enum PushOutcome: Sendable, Equatable {
    /// APNs accepted it.
    case delivered
    /// Try again after that many seconds by the store's clock (429, 5xx, network trouble).
    case retry(after: TimeInterval, reason: String)
    /// Never reached APNs (no connection could be made): back in the queue as it was, due at once, the attempt not
    /// counted. An hour of APNs out of reach must not use up a push's attempts; the worker waits for APNs instead.
    case unsent(reason: String)
    /// Give up, with APNs' reason, telling the merchant `notice` when there is one.
    case failed(reason: String, notice: WebhookNotice?)
    /// The token is dead for this topic (410 Unregistered, BadDeviceToken, DeviceTokenNotForTopic): the push fails
    /// as `failed` does, and the token's registrations for the order type go, and so do its other pending pushes.
    case tokenRejected(reason: String, notice: WebhookNotice?)
}

/// How many pushes the outbox holds in each status.
public struct PushCounts: Sendable, Equatable {
    public let byStatus: [PushStatus: Int]

    public init(byStatus: [PushStatus: Int]) {
        self.byStatus = byStatus
    }

    /// Pushes in one status.
    public subscript(status: PushStatus) -> Int { byStatus[status] ?? 0 }

    /// Pushes waiting to be sent: pending or being sent.
    public var outboxDepth: Int { self[.pending] + self[.sending] }
}
