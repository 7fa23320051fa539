import Foundation

/// A message a device sent to the log endpoint; identical messages share one entry.
public struct DeviceLogEntry: Sendable, Codable, Equatable {
    public let id: Int64
    /// When the message was first received.
    public let receivedAt: Date
    /// Who sent it last.
    public let remoteAddress: String?
    public let message: String
    /// How many times it was received.
    public let count: Int
    /// When it was last received.
    public let lastSeenAt: Date

    public init(
        id: Int64,
        receivedAt: Date,
        remoteAddress: String?,
        message: String,
        count: Int = 1,
        lastSeenAt: Date? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.remoteAddress = remoteAddress
        self.message = message
        self.count = count
        self.lastSeenAt = lastSeenAt ?? receivedAt
    }

    /// What an entry holding `message` counts for against the log's total size: twice its UTF-8 bytes, plus a
    /// charge for the row and its index entries, so that the total bounds the space on disk, not just the text.
    /// Twice, because a row just over half a database page fills that page alone (SQLite's 4 KiB pages, measured:
    /// 2.5 KB messages took 1.6 times their size); the row charge, so that many tiny messages cannot pass the
    /// bound either. The migrations that size existing rows count the same.
    public static func storedSize(of message: String) -> Int {
        2 * message.utf8.count + rowCharge
    }

    /// Bytes charged per entry beyond its message.
    public static let rowCharge = 160

    /// A stable 64-bit digest of `message` (FNV-1a) that finds an identical message's entry through an index.
    /// Not collision-resistant: the stores compare the message itself too.
    public static func digest(of message: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in message.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// What became of a batch of device log messages in the store.
public struct DeviceLogAppend: Sendable, Equatable {
    /// Messages stored as new entries.
    public var stored: Int
    /// Messages folded into an entry holding the same text (its count and last-seen time moved on).
    public var folded: Int
    /// Older entries deleted to keep the log within its total size.
    public var evicted: Int

    public init(stored: Int = 0, folded: Int = 0, evicted: Int = 0) {
        self.stored = stored
        self.folded = folded
        self.evicted = evicted
    }
}

/// Which device log entries a listing shows.
public struct LogFilter: Sendable {
    /// Only entries last received at or after this time.
    public var since: Date?
    /// Only entries containing this text (case-insensitive for ASCII).
    public var containing: String?
    /// Only the entries a merchant may read: those naming one of its orders, or for the default merchant those
    /// naming no other merchant's (see `OrderStore.appendLogs`).
    public var merchant: Int64?

    public init(since: Date? = nil, containing: String? = nil, merchant: Int64? = nil) {
        self.since = since
        self.containing = containing
        self.merchant = merchant
    }
}

/// The messages of one append, each distinct one once with how many times it came, in the order first sent:
/// what both engines fold and insert.
public struct DeviceLogBatch: Sendable {
    public let counted: [(message: String, count: Int)]

    public init(_ messages: [String]) {
        var index: [String: Int] = [:]
        var counted: [(message: String, count: Int)] = []
        for message in messages {
            if let at = index[message] {
                counted[at].count += 1
            } else {
                index[message] = counted.count
                counted.append((message, 1))
            }
        }
        self.counted = counted
    }
}
