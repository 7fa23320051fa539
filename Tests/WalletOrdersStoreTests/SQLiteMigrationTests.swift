import Foundation
import GRDB
import Testing
import WalletOrdersMigrations
import WalletOrdersModel
import WalletOrdersSQLite
import WalletOrdersStore
import WalletOrdersTesting

/// A database written before a migration rebuilt its tables keeps what it held, and the store works on it.
@Suite(.timeLimit(.minutes(5))) struct SQLiteMigrationTests {
    /// A database at the schema of every migration named before `name`, recorded as applied the way GRDB records them.
    static func database(at path: String, before name: String) throws -> DatabaseQueue {
        var migrator = DatabaseMigrator()
        for migration in try Migrations.all(for: .sqlite) where migration.name < name {
            migrator.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
        }
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue)
        return queue
    }

    @Test func theHistoryAndRegistrationsRebuiltOnTheirKeysKeepEveryRow() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("orders.sqlite")
        let type = Writes.type
        let old = try Self.database(at: path, before: "0005")
        try await old.write { db in
            let document = SampleOrder.document(orderIdentifier: "A-1")
            try db.execute(
                sql: """
                    INSERT INTO orders (order_type_identifier, order_identifier, authentication_token, document, status,
                                        created_at, updated_at, change_tag, version)
                    VALUES (?, 'A-1', 'token-of-sixteen-chars', ?, 'open', 1000, 1002, 1, 3)
                    """,
                arguments: [type, String(decoding: document.serialized, as: UTF8.self)]
            )
            for version in 1...3 {
                try db.execute(
                    sql: """
                        INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
                        VALUES (?, 'A-1', ?, 'open', ?)
                        """,
                    arguments: [type, version, 999 + version]
                )
            }
            for device in ["phone", "watch"] {
                try db.execute(
                    sql: """
                        INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                                   created_at, updated_at)
                        VALUES (?, ?, 'A-1', ?, 1000, 1000)
                        """,
                    arguments: [device, type, "token-of-\(device)"]
                )
            }
        }
        try old.close()

        let store = try SQLiteStore(path: path)
        #expect(
            try await store.migrate() == [
                "0005_fewer_pages_per_write", "0006_merchants", "0007_order_links", "0008_webhooks", "0009_partners_and_tracking", "0010_console",
                "0011_bounded_tracking_events", "0012_version_history_bytes", "0013_shop_connections", "0014_stalled_parcels",
            ]
        )
        #expect(try await store.versions(type: type, id: "A-1").map(\.version) == [1, 2, 3])
        #expect(
            try await store.registrations(RegistrationFilter(type: type), limit: 10).map(\.deviceIdentifier).sorted()
                == ["phone", "watch"]
        )
        #expect(try await store.changedOrders(device: "watch", type: type, since: nil)?.orderIdentifiers == ["A-1"])
        #expect(
            try await store.at(Date(unixSeconds: 2000)).register(
                device: "phone",
                type: type,
                id: "A-1",
                pushToken: "token-of-phone",
                maxDevices: nil,
                firstDevice: .addedToWallet
            ) == .existing
        )
        // The next version lands in the rebuilt history and queues a push to each device registered before.
        let update = try await store.update("A-1", at: Date(unixSeconds: 3000))
        #expect(update.order.version == 4)
        #expect(update.pushesQueued == 2)
        #expect(try await store.versions(type: type, id: "A-1").map(\.version) == [1, 2, 3, 4])
        let tables = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE name IN ('order_versions', 'registrations')
                      AND sql LIKE '%WITHOUT ROWID%' ORDER BY name
                    """
            )
        }
        #expect(tables == ["order_versions", "registrations"])
        await store.close()
    }
}
