import Foundation

/// What every store is beside its records: where it lives, its schema, its health, its clock, the changes it
/// announces, and its end.
public protocol StoreLifecycle: Sendable {
    /// Where the data lives, for people: a file path or `postgres://user@host:port/db` without the password.
    var location: String { get }
    /// Whether other instances write to the same database (PostgreSQL): what this process caches of it then hears
    /// of their writes a moment after they commit, not at once.
    var isShared: Bool { get }
    /// Applies the migrations not yet applied, in order, and returns their names.
    func migrate() async throws -> [String]
    /// The migrations not yet applied, in order.
    func pendingMigrations() async throws -> [String]
    /// Throws unless the database takes a write.
    func checkWritable() async throws
    /// Whether the database answers a query now.
    func isReachable() async -> Bool
    /// The room left on the filesystem holding the database; nil when the database lives elsewhere (PostgreSQL,
    /// whose server watches its own disk). Cheap: `/healthz` asks on every request.
    func diskSpace() -> DiskSpace?
    /// Keeps the query planner's statistics current; cheap when nothing changed. The service calls it from time to time.
    func optimize() async throws
    /// The time by the store's clock: the database server's for PostgreSQL, the one clock every instance sharing it
    /// reads alike; this host's for SQLite, whose instances share the host. One round trip: `clock` carries it
    /// forward between readings.
    func time() async throws -> Date
    /// The clock every time the store writes and compares is read from, and what the service reads too (see
    /// `StoreClock`): no caller hands the store a time of its own.
    var clock: StoreClock { get }
    /// Releases connections and background work; the store is unusable afterwards.
    func close() async
    /// What changes to watch: pushes queued and order versions written, by this process or (PostgreSQL) any
    /// other instance. Each call is a new subscription; it ends when the store closes.
    func events() -> AsyncStream<StoreEvent>
}
