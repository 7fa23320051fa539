import Foundation

/// The SQL migrations of each store engine, in the order they apply.
public enum Migrations {
    /// The database engines that have migrations.
    public enum Engine: String, Sendable {
        case sqlite
        case postgres
    }

    /// One migration: its name (the file name without `.sql`) and its SQL.
    public struct Migration: Sendable {
        public let name: String
        public let sql: String
    }

    /// Every migration of `engine`, sorted by name.
    public static func all(for engine: Engine) throws -> [Migration] {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent(engine.rawValue) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { name in
                Migration(
                    name: String(name.dropLast(4)),
                    sql: try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                )
            }
    }
}
