import WalletOrdersPostgres

/// Where the service keeps its data.
public enum DatabaseLocation: Sendable, CustomStringConvertible {
    /// One SQLite file: the embedded default, for one instance.
    case sqlite(path: String)
    /// A PostgreSQL database several instances share.
    case postgres(PostgresURL)

    /// A `postgres://` (or `postgresql://`) URL, or else a file path.
    public init(_ text: String) throws {
        guard PostgresURL.isPostgres(text) else {
            self = .sqlite(path: text)
            return
        }
        do {
            self = .postgres(try PostgresURL(text))
        } catch let error as PostgresURLError {
            throw ConfigurationError("database: \(error.description)")
        }
    }

    /// The file path or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }
}
