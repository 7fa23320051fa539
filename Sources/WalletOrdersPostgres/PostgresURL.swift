import Foundation
import PostgresNIO

/// A `postgres://user[:password]@host[:port]/database` URL, read once into what `PostgresClient` needs.
///
/// `?sslmode=disable|prefer|require` picks TLS (`prefer` when absent, as libpq does); `?host=/run/postgresql`
/// reaches the server through its Unix socket in that folder instead of TCP.
public struct PostgresURL: Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let username: String
    let password: String?
    public let database: String
    /// The Unix socket file, when the URL names a socket folder.
    public let socketPath: String?
    public let sslMode: String

    /// Whether `text` is meant as a PostgreSQL URL rather than a file path.
    public static func isPostgres(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads `text`; throws a sentence saying what is wrong with it.
    public init(_ text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresURLError("\(Self.redacted(text)) is not a postgres://user@host:port/database URL")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
        let port = components.port ?? 5432
        self.port = port
        let socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        socketPath = socketFolder.map { "\($0)/.s.PGSQL.\(port)" }
        let named = components.host ?? ""
        host = !named.isEmpty ? named : socketFolder == nil ? "localhost" : ""
        guard let user = components.user, !user.isEmpty else {
            throw PostgresURLError("\(Self.redacted(text)) names no user: postgres://user@host:port/database")
        }
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let name = String(components.path.drop(while: { $0 == "/" }))
        guard !name.isEmpty else {
            throw PostgresURLError("\(Self.redacted(text)) names no database: postgres://user@host:port/database")
        }
        database = name
        sslMode = query["sslmode"] ?? "prefer"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw PostgresURLError("sslmode must be disable, prefer or require, not \(sslMode)")
        }
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        let server = socketPath.map { "[\($0)]" } ?? "\(host):\(port)"
        return "postgres://\(username)@\(server)/\(database)"
    }

    /// The client configuration: TLS as `sslmode` says, at most `connections` connections.
    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = .init(unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            configuration = .init(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: tls
            )
        }
        configuration.options.maximumConnections = connections
        return configuration
    }

    /// One connection's configuration, TLS as `sslmode` says.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketPath {
            return .init(unixSocketPath: socketPath, username: username, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case "disable": .disable
            case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        return .init(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    /// `text` with any password replaced, so an error message never shows it.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "…"
        return components.string ?? "the database URL"
    }
}

/// A database URL that cannot be used, with a sentence that says why.
public struct PostgresURLError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
