import Foundation

/// The SQL migrations in `sql/`, in the order they apply.
public enum Migrations {
    /// One migration: its name (the file name without `.sql`) and its SQL.
    public struct Migration: Sendable {
        public let name: String
        public let sql: String
    }

    /// Every migration, sorted by name.
    public static func all() throws -> [Migration] {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("sql") else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { name in
                Migration(name: String(name.dropLast(4)),
                          sql: try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
            }
    }
}
