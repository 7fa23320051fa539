import Logging
import PostgresNIO
import Synchronization
import WalletOrdersStore

/// The store's way to PostgresNIO's pool: every query first asks the probe whether the database is known to be
/// down (then fails at once), and a query that fails because the database went away fails as
/// `StoreError.unavailable`. Rows are read whole inside, so that a connection lost while they arrive is seen here too.
///
/// Nothing here waits on PostgreSQL without a bound. PostgresNIO 1.33 loses a query written to a connection in the
/// instant it closes (the write reaches a pipeline already taken apart, and the query's promise is never failed):
/// under `pg_terminate_backend` in a loop a store call waited forever about once every few seconds, holding its
/// order's write lock, so every later write to that order waited too, and the process could not stop. So each call
/// runs in a task of its own, watched by a second: a call that has no connection within `leaseTimeout`, or whose
/// connection has closed and which still waits `closedGrace` later, fails with `StoreError.unavailable` (a 503 with
/// `Retry-After`); the lost query's task is left behind, waiting on nothing, and its connection, closed, has already
/// left the pool.
struct PooledClient: Sendable {
    let pool: PostgresClient
    let probe: DatabaseProbe

    /// How long a call waits for a connection: long enough for a pool that is busy, not broken (every connection
    /// in use by queries of a few milliseconds frees one well within it).
    static let leaseTimeout: Duration = .seconds(5)
    /// How long a call may go on after its connection closed: a query in flight when it closes fails at once, so a
    /// call still waiting a second later waits on a query that was lost.
    static let closedGrace: Duration = .seconds(1)
    /// How often the watch looks.
    static let watchInterval: Duration = .milliseconds(500)

    /// Every row `query` answers.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { try await $0.query(query, logger: logger).collect() }
    }

    /// Every row the prepared `statement` answers.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await withConnection { connection in
            try await connection.execute(statement, logger: logger).reduce(into: []) { $0.append($1) }
        }
    }

    /// Runs `body` on a connection of the pool's, in a task of its own (see the type's note).
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try probe.check()
        let call = Call<Result>()
        let work = Task { [pool, probe] in
            do {
                let result = try await pool.withConnection { connection in
                    // After the deadline nobody waits: the connection goes straight back.
                    guard call.leased(connection) else { throw CancellationError() }
                    guard !connection.isClosed else { throw StoreError.unavailable(Self.lost) }
                    return try await body(connection)
                }
                call.settle(.success(result))
            } catch {
                call.settle(.failure(probe.classify(error)))
            }
        }
        let watch = Task {
            if await call.watch() {
                work.cancel()
                probe.lookSoon()
            }
        }
        defer { watch.cancel() }
        return try await withTaskCancellationHandler {
            try await call.outcome()
        } onCancel: {
            work.cancel()
        }
    }

    static let lost = "the connection to the database was lost"

    /// One call's state, shared by the caller, its work and its watch.
    private final class Call<Value: Sendable>: Sendable {
        private struct State {
            var connection: PostgresConnection?
            var outcome: Swift.Result<Value, any Error>?
            var waiting: CheckedContinuation<Value, any Error>?
        }

        private let state = Mutex(State())

        /// Notes the connection the pool lent; answers false when the call has ended already.
        func leased(_ connection: PostgresConnection) -> Bool {
            state.withLock { state in
                guard state.outcome == nil else { return false }
                state.connection = connection
                return true
            }
        }

        /// Ends the call with `outcome`, unless it has ended already.
        func settle(_ outcome: Swift.Result<Value, any Error>) {
            let waiting = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(with: outcome)
        }

        /// What the call ended with, once it has.
        func outcome() async throws -> Value {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = state.withLock { state in
                    if state.outcome == nil { state.waiting = continuation }
                    return state.outcome
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        }

        /// Looks at the call until it ends, or until it waited `leaseTimeout` for a connection or `closedGrace` past
        /// its connection's closing; then ends it with `StoreError.unavailable` and answers true.
        func watch() async -> Bool {
            let start = ContinuousClock.now
            var closedAt: ContinuousClock.Instant?
            while true {
                do { try await Task.sleep(for: PooledClient.watchInterval) } catch { return false }
                let now = ContinuousClock.now
                let (ended, connection) = state.withLock { ($0.outcome != nil, $0.connection) }
                if ended { return false }
                let reason: String
                if let connection {
                    guard connection.isClosed else { continue }
                    let since = closedAt ?? now
                    closedAt = since
                    guard now - since >= PooledClient.closedGrace else { continue }
                    reason = PooledClient.lost
                } else {
                    guard now - start >= PooledClient.leaseTimeout else { continue }
                    reason = "no connection to the database came free within \(PooledClient.leaseTimeout)"
                }
                settle(.failure(StoreError.unavailable(reason)))
                return true
            }
        }
    }
}
