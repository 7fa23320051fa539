import Foundation
import WalletOrdersModel

/// An order as stored: its document and what the store keeps beside it.
public struct StoredOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    /// order.json, server-filled fields included.
    public let document: OrderDocument
    public let status: Order.Status
    public let createdAt: Date
    /// The order's `updatedAt`, whole seconds; each update moves it forward at least one second.
    public let updatedAt: Date
    /// Orders the writes for "which orders changed since": a newer write of any order of the type has a larger tag.
    public let changeTag: Int64
    /// 1 when created, one more per update.
    public let version: Int

    public init(orderTypeIdentifier: String, orderIdentifier: String, authenticationToken: String,
                document: OrderDocument, status: Order.Status, createdAt: Date, updatedAt: Date,
                changeTag: Int64, version: Int) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.changeTag = changeTag
        self.version = version
    }

    /// What `write` became once a store committed it as `version` with `changeTag`: its dates at whole seconds, as
    /// stored, and created at `createdAt` (unix seconds) when the store kept an earlier creation time than the
    /// write's (an update).
    public init(committed write: OrderWrite, changeTag: Int64, version: Int, createdAt: Int64? = nil) {
        self.init(
            orderTypeIdentifier: write.orderTypeIdentifier, orderIdentifier: write.orderIdentifier,
            authenticationToken: write.authenticationToken, document: write.document, status: write.status,
            createdAt: Date(unixSeconds: createdAt ?? write.createdAt.unixSeconds),
            updatedAt: Date(unixSeconds: write.updatedAt.unixSeconds), changeTag: changeTag, version: version)
    }

    /// The head of this order, without its document.
    public var head: OrderHead {
        OrderHead(authenticationToken: authenticationToken, updatedAt: updatedAt, changeTag: changeTag, version: version)
    }
}

/// An order and its per-order files, as the write path reads them before building the next version.
public struct CurrentOrder: Sendable {
    public let order: StoredOrder
    /// The merchant's per-order files (images, return labels), by package path.
    public let assets: [String: Data]

    public init(order: StoredOrder, assets: [String: Data]) {
        self.order = order
        self.assets = assets
    }
}

/// One version of an order, ready to commit: built, validated and signed before any transaction starts.
public struct OrderWrite: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    public let document: OrderDocument
    public let createdAt: Date
    public let updatedAt: Date
    /// The per-order files of this version; nil when an update leaves them as they were.
    public let assets: [String: Data]?
    /// What is kept of this version's signed package, opaque to the store: its seal (the signature and digests of
    /// what it signed, from which the service assembles the same package again), or the package itself when its key
    /// makes no seals.
    public let package: Data

    public init(orderTypeIdentifier: String, orderIdentifier: String, authenticationToken: String,
                document: OrderDocument, createdAt: Date, updatedAt: Date, assets: [String: Data]?, package: Data) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.assets = assets
        self.package = package
    }

    /// The order's status as its document says (`open` when it says nothing the store knows).
    public var status: Order.Status {
        document["status"]?.stringValue.flatMap(Order.Status.init(rawValue:)) ?? .open
    }
}

/// What committing a new version did.
public struct OrderUpdate: Sendable {
    public let order: StoredOrder
    /// How many devices were registered, each with a push queued (or already pending).
    public let pushesQueued: Int

    public init(order: StoredOrder, pushesQueued: Int) {
        self.order = order
        self.pushesQueued = pushesQueued
    }
}

/// The fields of an order needed to answer a device, without its document.
public struct OrderHead: Sendable, Equatable {
    public let authenticationToken: String
    public let updatedAt: Date
    public let changeTag: Int64
    public let version: Int

    public init(authenticationToken: String, updatedAt: Date, changeTag: Int64, version: Int) {
        self.authenticationToken = authenticationToken
        self.updatedAt = updatedAt
        self.changeTag = changeTag
        self.version = version
    }
}

/// An order's head and, when one is stored for its current version, what is kept of its signed package (see
/// `OrderWrite.package`).
public struct FetchedOrder: Sendable {
    public let head: OrderHead
    public let package: Data?

    public init(head: OrderHead, package: Data?) {
        self.head = head
        self.package = package
    }
}

/// One line of an order listing.
public struct OrderSummary: Sendable, Codable, Equatable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let status: Order.Status
    public let createdAt: Date
    public let updatedAt: Date
    public let version: Int
    /// How many devices are registered for the order.
    public let registrations: Int

    public init(orderTypeIdentifier: String, orderIdentifier: String, status: Order.Status, createdAt: Date,
                updatedAt: Date, version: Int, registrations: Int) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.registrations = registrations
    }
}

/// Which orders a listing shows.
public struct OrderFilter: Sendable {
    public var type: String?
    public var status: Order.Status?
    public var updatedSince: Date?

    public init(type: String? = nil, status: Order.Status? = nil, updatedSince: Date? = nil) {
        self.type = type
        self.status = status
        self.updatedSince = updatedSince
    }
}

/// One version of an order: when it was written and the status it had.
public struct OrderVersion: Sendable, Codable, Equatable {
    public let version: Int
    public let status: Order.Status
    public let updatedAt: Date

    public init(version: Int, status: Order.Status, updatedAt: Date) {
        self.version = version
        self.status = status
        self.updatedAt = updatedAt
    }
}

/// Which page of a newest-first listing to read.
public struct PageRequest: Sendable, Equatable {
    /// At most this many records.
    public let limit: Int
    /// Start after this cursor: the `next` of the page before.
    public let before: Int64?

    public init(limit: Int, before: Int64? = nil) {
        self.limit = max(1, limit)
        self.before = before
    }
}

/// One page of a newest-first listing, and where the next one starts (nil on the last page).
public struct Page<Record: Sendable>: Sendable {
    public let records: [Record]
    public let next: Int64?

    public init(records: [Record], next: Int64?) {
        self.records = records
        self.next = next
    }

    /// A page from up to `limit + 1` rows read newest first: the extra row only says that there is more.
    public init(rows: [(cursor: Int64, record: Record)], limit: Int) {
        let page = rows.prefix(limit)
        records = page.map(\.record)
        next = rows.count > limit ? page.last?.cursor : nil
    }
}

extension Page: Equatable where Record: Equatable {}

/// A device registered for an order's updates.
public struct Registration: Sendable, Codable, Equatable {
    public let deviceIdentifier: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let pushToken: String
    public let createdAt: Date
    public let updatedAt: Date

    public init(deviceIdentifier: String, orderTypeIdentifier: String, orderIdentifier: String, pushToken: String,
                createdAt: Date, updatedAt: Date) {
        self.deviceIdentifier = deviceIdentifier
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.pushToken = pushToken
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Which registrations a listing shows.
public struct RegistrationFilter: Sendable {
    public var device: String?
    public var type: String?
    public var id: String?

    public init(device: String? = nil, type: String? = nil, id: String? = nil) {
        self.device = device
        self.type = type
        self.id = id
    }
}

/// What registering did.
public enum RegistrationOutcome: Sendable, Equatable {
    /// A new registration.
    case created
    /// The device was already registered; its push token is now the one given.
    case existing
}

/// The orders of one type that changed for a device since a tag.
public struct ChangedOrders: Sendable, Equatable {
    public let orderIdentifiers: [String]
    /// The tag to hand back next time.
    public let lastModified: Int64

    public init(orderIdentifiers: [String], lastModified: Int64) {
        self.orderIdentifiers = orderIdentifiers
        self.lastModified = lastModified
    }
}

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

    public init(id: Int64, receivedAt: Date, remoteAddress: String?, message: String, count: Int = 1,
                lastSeenAt: Date? = nil) {
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

    public init(since: Date? = nil, containing: String? = nil) {
        self.since = since
        self.containing = containing
    }
}

/// Counts for admins: what the database holds and how pushes went lately.
public struct StoreStats: Sendable, Codable, Equatable {
    public let orders: Int
    public let ordersByStatus: [String: Int]
    public let registrations: Int
    public let devices: Int
    public let deviceLogs: Int
    /// Pushes waiting to be sent: pending or being sent.
    public let outboxDepth: Int
    public let pushesByStatus: [String: Int]
    /// Pushes that reached `delivered` or `failed` in the last hour and the last day, by that status.
    public let pushesLastHour: [String: Int]
    public let pushesLastDay: [String: Int]

    public init(orders: Int, ordersByStatus: [String: Int], registrations: Int, devices: Int, deviceLogs: Int,
                pushes: PushCounts, pushesLastHour: [String: Int], pushesLastDay: [String: Int]) {
        self.orders = orders
        self.ordersByStatus = ordersByStatus
        self.registrations = registrations
        self.devices = devices
        self.deviceLogs = deviceLogs
        self.outboxDepth = pushes.outboxDepth
        self.pushesByStatus = pushes.byStatus
        self.pushesLastHour = pushesLastHour
        self.pushesLastDay = pushesLastDay
    }
}

/// An order loaded in bulk: its first version, with its package when one is at hand.
public struct ImportedOrder: Sendable {
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let authenticationToken: String
    public let document: OrderDocument
    public let createdAt: Date
    public let updatedAt: Date
    public let package: Data?

    public init(orderTypeIdentifier: String, orderIdentifier: String, authenticationToken: String,
                document: OrderDocument, createdAt: Date, updatedAt: Date, package: Data?) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.authenticationToken = authenticationToken
        self.document = document
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.package = package
    }
}

/// A registration loaded in bulk.
public struct ImportedRegistration: Sendable {
    public let deviceIdentifier: String
    public let orderTypeIdentifier: String
    public let orderIdentifier: String
    public let pushToken: String
    public let createdAt: Date

    public init(deviceIdentifier: String, orderTypeIdentifier: String, orderIdentifier: String, pushToken: String,
                createdAt: Date) {
        self.deviceIdentifier = deviceIdentifier
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.pushToken = pushToken
        self.createdAt = createdAt
    }
}

/// Why the store refused a write.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An order with this type and identifier already exists.
    case orderExists
    /// No order has this type and identifier.
    case orderNotFound
    /// The order moved on to another version between the read and the commit.
    case versionConflict
    /// The database says something the store cannot use.
    case unexpected(String)

    public var description: String {
        switch self {
        case .orderExists: "an order with this type and identifier already exists"
        case .orderNotFound: "no such order"
        case .versionConflict: "the order changed meanwhile"
        case .unexpected(let detail): detail
        }
    }
}

/// Something that changed in the store, for those who wait on it.
public enum StoreEvent: Sendable, Equatable {
    /// Pushes were queued: a worker should look at the outbox.
    case pushesQueued
    /// A new version of an order was committed.
    case orderChanged(type: String, id: String, version: Int)
    /// Events may have been lost before this one (a subscriber fell behind, or the store listened again after
    /// an interruption); from here on they are complete. Look again at everything. A subscription's first event
    /// is this one once the store's events are complete.
    case resync
    /// Events of other instances may be lost from here until the next `resync` (the store stopped listening).
    case interrupted
}

extension Date {
    /// Whole unix seconds, as the stores keep times.
    public var unixSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// The date of whole unix seconds.
    public init(unixSeconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixSeconds))
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
