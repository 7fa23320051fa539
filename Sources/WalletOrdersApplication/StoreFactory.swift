import Foundation
import Logging
import WalletOrdersPostgres
import WalletOrdersSQLite
import WalletOrdersStore

/// Opens the store the configuration names.
public enum StoreFactory {
    /// The SQLite or PostgreSQL store at `location`, not yet migrated, reading times from `clock`.
    public static func open(
        _ location: DatabaseLocation,
        logger: Logger,
        clock: StoreClock = StoreClock()
    ) async throws -> any OrderStore {
        switch location {
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path, clock: clock)
            } catch {
                throw ConfigurationError("the database \(path) cannot be opened: \(error)")
            }
        case .postgres(let url):
            return await PostgresStore(url: url, logger: logger, clock: clock)
        }
    }
}
