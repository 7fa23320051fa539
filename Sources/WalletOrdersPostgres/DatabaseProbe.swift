import Foundation
import Logging
import PostgresNIO
import Synchronization
import WalletOrdersStore

/// Whether PostgreSQL answers, known without waiting on the pool: once a second a connection of its own (outside the
/// pool) runs `SELECT 1`. While it does not answer, queries fail at once with `StoreError.unavailable` instead of
/// queueing in the pool, which keeps them waiting (up to a minute, its circuit breaker) for a connection it cannot
/// make: a merchant's write answers 503 at once, `/healthz` too, and a device's fetch falls back to what the fetch
/// cache held. A query whose connection was lost makes the probe look at once: a server that went away is known
/// within milliseconds, while one connection killed (`pg_terminate_backend`) fails that query alone.
final class DatabaseProbe: Sendable {
    private let state = Mutex(State())
    /// Makes the probe look now rather than at its next turn.
    private let lookNow = WakeSignal()

    private struct State {
        var down: String?
        var since: ContinuousClock.Instant?
    }

    /// How often the probe looks, and how long one look may take before it counts as no answer (connecting takes
    /// as long at most).
    static let interval: Duration = .seconds(1)
    /// Long: a database slow under load is not down, and calling it down would fail every query meanwhile. A server
    /// that stopped or restarts refuses or closes connections at once; this is for one that stopped answering.
    static let timeout: Duration = .seconds(10)

    /// Throws `StoreError.unavailable` while the database is known to be down.
    func check() throws {
        if let reason = state.withLock({ $0.down }) { throw StoreError.unavailable(reason) }
    }

    var isDown: Bool { state.withLock { $0.down != nil } }

    /// Marks the database down for `reason` until the probe reaches it again.
    private func markDown(_ reason: String) {
        state.withLock { state in
            if state.down == nil { state.since = .now }
            state.down = reason
        }
    }

    private func markUp() {
        state.withLock { $0 = State() }
    }

    /// Looks at the database every `interval`, and when a query lost its connection, until cancelled, on a
    /// connection of its own made with `configuration`. The database is down only when a new connection cannot
    /// be made or cannot run `SELECT 1`: losing the one it had (killed, or the server restarting) makes it try a
    /// new one at once.
    func run(configuration: PostgresConnection.Configuration, watch: CallWatch, logger: Logger) async {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(10)
        var connection: PostgresConnection?
        var made = 0
        while !Task.isCancelled {
            var answered = false
            for _ in 0..<2 where !answered && !Task.isCancelled {
                do {
                    if connection == nil || connection?.isClosed == true {
                        made += 1
                        connection = try await PostgresConnection.connect(configuration: configuration, id: made, logger: logger)
                    }
                    if let live = connection {
                        // A server that stopped answering without closing the connection: closing it ends the query.
                        let watchdog = Task {
                            try await Task.sleep(for: Self.timeout)
                            try? await live.close()
                        }
                        defer { watchdog.cancel() }
                        // Watched as the pool's calls are: a query lost with its connection (see `PooledClient`)
                        // would keep the probe from ever looking again, and the store from closing.
                        _ = try await watch.run(on: live) { try await live.query("SELECT 1", logger: logger).collect().count }
                    }
                    answered = true
                } catch {
                    try? await connection?.close()
                    connection = nil
                    if !isDown, made > 0 { logger.debug("the probe's connection failed", metadata: ["error": "\(String(reflecting: error))"]) }
                }
            }
            if answered, isDown {
                logger.notice("the database answers again")
                markUp()
            } else if !answered, !Task.isCancelled {
                if !isDown { logger.error("the database does not answer") }
                markDown("the database does not answer")
            }
            await lookNow.wait(timeout: Self.interval)
        }
        try? await connection?.close()
    }

    /// Makes the probe look now: a call gave up on a connection that closed under it.
    func lookSoon() { lookNow.wake() }

    /// What a failed query says of the database: a lost or refused connection, or PostgreSQL shutting down or
    /// ending the session (SQLSTATE classes 08 and 57P), mean it is out of reach for now: `StoreError.unavailable`,
    /// and the database is marked down until the probe reaches it. Anything else is the query's own failure.
    func classify(_ error: any Error) -> any Error {
        if error is StoreError { return error }
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                lookNow.wake()
                return StoreError.unavailable("the connection to the database was lost")
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                if state.hasPrefix("08") || state.hasPrefix("57P") {
                    lookNow.wake()
                    return StoreError.unavailable("the database ended the session (\(state))")
                }
            default: break
            }
        }
        // The pool's own refusal after failing to connect for a while (its circuit breaker), named by type: its module
        // is PostgresNIO's internal one.
        if String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") {
            lookNow.wake()
            return StoreError.unavailable("no connection to the database could be made")
        }
        return error
    }
}
