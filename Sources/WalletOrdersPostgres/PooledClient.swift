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
/// runs in a task of its own, which the caller waits for, and `CallWatch` looks at the calls under way twice a second:
/// a call that has no connection within `leaseTimeout`, or whose connection has closed and which still waits
/// `closedGrace` later, fails with `StoreError.unavailable` (a 503 with `Retry-After`); the lost query's task is left
/// behind, waiting on nothing, and its connection, closed, has already left the pool.
struct PooledClient: Sendable {
    let pool: PostgresClient
    let probe: DatabaseProbe
    let watch = CallWatch()

    /// How long a call waits for a connection: long enough for a pool that is busy, not broken (every connection
    /// in use by queries of a few milliseconds frees one well within it).
    static let leaseTimeout: Duration = .seconds(5)
    /// How long a call may go on after its connection closed: a query in flight when it closes fails at once, so a
    /// call still waiting a second later waits on a query that was lost.
    static let closedGrace: Duration = .seconds(1)

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
        return try await watch.run { [pool, probe] (call: Call<Result>) in
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
    }

    static let lost = "the connection to the database was lost"
}

/// The store calls under way, looked at twice a second while `run` runs: a call that waits too long for a connection,
/// or goes on too long after its connection closed, is given up (see `PooledClient`).
final class CallWatch: Sendable {
    private let calls = Mutex<[ObjectIdentifier: any WatchedCall]>([:])

    /// How often the calls are looked at.
    static let interval: Duration = .milliseconds(500)

    fileprivate func add(_ call: some WatchedCall) {
        calls.withLock { $0[ObjectIdentifier(call)] = call }
    }

    fileprivate func remove(_ call: some WatchedCall) {
        _ = calls.withLock { $0.removeValue(forKey: ObjectIdentifier(call)) }
    }

    /// Runs `operation` in a task of its own, which settles the call it is given (and says which connection it uses),
    /// and waits for the call's outcome: the operation's, or the watch's when it gives the call up.
    fileprivate func run<Value: Sendable>(_ operation: @escaping @Sendable (Call<Value>) async -> Void) async throws -> Value {
        let call = Call<Value>()
        // Started on this thread, up to its first wait, rather than queued: one hop fewer on every store call.
        let work = Task.immediate { await operation(call) }
        call.started(work)
        add(call)
        defer { remove(call) }
        return try await withTaskCancellationHandler {
            try await call.outcome()
        } onCancel: {
            // The caller stops waiting at once, as it does on SQLite: a query lost with its connection, or one waiting
            // on a lock, must not keep a cancelled caller (a stopping worker, a test past its time limit) waiting.
            call.settle(.failure(CancellationError()))
            work.cancel()
        }
    }

    /// Runs `query` on `connection`, one of the caller's own outside the pool, watched as a pooled call is: given up
    /// once the connection has closed and the query still waits `PooledClient.closedGrace` later.
    func run<Value: Sendable>(
        on connection: PostgresConnection,
        _ query: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await run { (call: Call<Value>) in
            _ = call.leased(connection)
            do {
                call.settle(.success(try await query()))
            } catch {
                call.settle(.failure(error))
            }
        }
    }

    /// Looks at the calls until cancelled; `gaveUp` is told why each time a call was given up.
    func run(gaveUp: @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            let now = ContinuousClock.now
            let underWay = calls.withLock { Array($0.values) }
            for call in underWay {
                if let reason = call.giveUpIfStuck(now: now) { gaveUp(reason) }
            }
        }
    }
}

private protocol WatchedCall: AnyObject, Sendable {
    /// Ends the call with `StoreError.unavailable` when it waited too long; answers why when it did.
    func giveUpIfStuck(now: ContinuousClock.Instant) -> String?
}

/// One call's state, shared by the caller, its work and the watch.
private final class Call<Value: Sendable>: WatchedCall {
    private struct State {
        var work: Task<Void, Never>?
        var connection: PostgresConnection?
        var closedAt: ContinuousClock.Instant?
        var outcome: Result<Value, any Error>?
        var waiting: CheckedContinuation<Value, any Error>?
    }

    private let start = ContinuousClock.now
    private let state = Mutex(State())

    func started(_ work: Task<Void, Never>) {
        state.withLock { $0.work = work }
    }

    /// Notes the connection the pool lent; answers false when the call has ended already.
    func leased(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard state.outcome == nil else { return false }
            state.connection = connection
            return true
        }
    }

    /// Ends the call with `outcome`, unless it has ended already; answers whether it did.
    @discardableResult
    func settle(_ outcome: Result<Value, any Error>) -> Bool {
        let (ended, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiting = nil }
            return (true, state.waiting)
        }
        waiting?.resume(with: outcome)
        return ended
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

    func giveUpIfStuck(now: ContinuousClock.Instant) -> String? {
        let reason = state.withLock { state -> String? in
            guard state.outcome == nil else { return nil }
            guard let connection = state.connection else {
                guard now - start >= PooledClient.leaseTimeout else { return nil }
                return "no connection to the database came free within \(PooledClient.leaseTimeout)"
            }
            guard connection.isClosed else { return nil }
            let closedAt = state.closedAt ?? now
            state.closedAt = closedAt
            return now - closedAt >= PooledClient.closedGrace ? PooledClient.lost : nil
        }
        guard let reason, settle(.failure(StoreError.unavailable(reason))) else { return nil }
        state.withLock { $0.work }?.cancel()
        return reason
    }
}
