import Logging
import PostgresNIO
import WalletOrdersStore

/// The store's way to PostgresNIO's pool: every query first asks the probe whether the database is known to be
/// down (then fails at once), and a query that fails because the database went away fails as
/// `StoreError.unavailable`. Rows are read whole inside, so that a connection lost while they arrive is seen here too.
struct PooledClient: Sendable {
    let pool: PostgresClient
    let probe: DatabaseProbe

    /// Every row `query` answers.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try probe.check()
        do {
            return try await pool.query(query, logger: logger).collect()
        } catch {
            throw probe.classify(error)
        }
    }

    /// Every row the prepared `statement` answers.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        try probe.check()
        do {
            return try await pool.execute(statement, logger: logger).reduce(into: []) { $0.append($1) }
        } catch {
            throw probe.classify(error)
        }
    }

    /// Runs `body` on a connection of the pool's.
    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try probe.check()
        do {
            return try await pool.withConnection(body)
        } catch {
            throw probe.classify(error)
        }
    }
}
