import WalletOrdersStore

/// What `/healthz` answers: whether the database answers, and whether the disk holding it has the room the
/// operator asked to keep free (`minFreeDiskBytes`).
public struct ServiceHealth: Sendable, Equatable {
    /// Whether the database answered a query.
    public let databaseReachable: Bool
    /// The room left on the database's filesystem; nil when the store does not know it (PostgreSQL).
    public let disk: DiskSpace?
    /// Below this many free bytes the service is unhealthy; nil: no minimum.
    public let minFreeDiskBytes: Int?

    public init(databaseReachable: Bool, disk: DiskSpace?, minFreeDiskBytes: Int?) {
        self.databaseReachable = databaseReachable
        self.disk = disk
        self.minFreeDiskBytes = minFreeDiskBytes
    }

    /// A sentence saying how little room is left, when it is less than the minimum; nil otherwise.
    public var diskShortage: String? { disk.flatMap { Self.shortage($0, minimum: minFreeDiskBytes) } }

    /// Whether the database answers and its disk has the room asked for.
    public var isHealthy: Bool { databaseReachable && diskShortage == nil }

    /// A sentence when `disk` has fewer than `minimum` bytes free; nil otherwise, or with no minimum.
    public static func shortage(_ disk: DiskSpace, minimum: Int?) -> String? {
        guard let minimum, disk.freeBytes < minimum else { return nil }
        return "the disk holding the database has \(DiskSpace.text(disk.freeBytes)) free, "
            + "less than the \(DiskSpace.text(minimum)) minFreeDiskBytes asks for: writes fail (507) once it is full"
    }
}
