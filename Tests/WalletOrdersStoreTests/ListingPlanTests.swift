import Foundation
import GRDB
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersPostgres
@testable import WalletOrdersSQLite

/// The listing ("which orders changed since", asked by every device after every push) reads a device's
/// registrations by their index and each order by its key, on both engines, once the planner has statistics of
/// tables shaped like production's (many devices, a few orders each). A plan that walked the order type instead
/// answered in seconds at a million orders once; this holds the plan, not a timing.
@Suite(.timeLimit(.minutes(5))) struct ListingPlanTests {
    static let orders = 20_000
    static let devices = 8_000
    static let perDevice = 5

    /// Orders `o0`… and devices `dev0`… registered for `perDevice` orders each, with statistics gathered.
    static func seed(_ store: any OrderStore) async throws {
        let created = Date(timeIntervalSince1970: 1_795_000_000)
        let document = SampleOrder.document(orderTypeIdentifier: Writes.type)
        let orders = (0..<Self.orders).map { index in
            var document = document
            document["orderIdentifier"] = .string("o\(index)")
            return ImportedOrder(
                orderTypeIdentifier: Writes.type,
                orderIdentifier: "o\(index)",
                authenticationToken: "token-of-order-\(index)",
                document: document,
                createdAt: created,
                updatedAt: created,
                package: nil
            )
        }
        try await store.importRecords(orders: orders, registrations: [])
        let registrations = (0..<devices).flatMap { device in
            (0..<perDevice).map { slot in
                ImportedRegistration(
                    deviceIdentifier: "dev\(device)",
                    orderTypeIdentifier: Writes.type,
                    orderIdentifier: "o\((device * perDevice + slot) % Self.orders)",
                    pushToken: String(format: "%064x", device),
                    createdAt: created
                )
            }
        }
        try await store.importRecords(orders: [], registrations: registrations)
        try await store.optimize()
    }

    @Test func sqliteSearchesTheDevicesRegistrationsThenEachOrderByItsKey() async throws {
        try await TestStore.with(.sqlite) { store in
            try await Self.seed(store)
            let sqlite = try #require(store as? SQLiteStore)
            let plan = try await sqlite.pool.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(SQLiteStore.changedOrdersSQL)", arguments: ["dev7", Writes.type])
                    .map { $0["detail"] as String }
            }
            // Asked of the statement the store runs, so a change to either is seen here.
            #expect(plan.count == 2, "one step per table: \(plan)")
            #expect(plan.first?.hasPrefix("SEARCH r USING") == true, "the device's registrations by an index: \(plan)")
            #expect(plan.first?.contains("device_identifier=?") == true, "by the device: \(plan)")
            #expect(plan.last?.hasPrefix("SEARCH o USING") == true, "each order by its key: \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "no table walked: \(plan)")
            // And the statement answers what the device holds.
            let changed = try #require(try await store.changedOrders(device: "dev7", type: Writes.type, since: nil))
            #expect(Set(changed.orderIdentifiers) == Set((35..<40).map { "o\($0)" }))
        }
    }

    /// The custom plan of the first executions and the generic one PostgreSQL settles on for a prepared statement
    /// after five.
    @Test(arguments: ["auto", "force_generic_plan"])
    func postgresScansTheDevicesRegistrationsByIndexThenEachOrderByItsKey(planCacheMode: String) async throws {
        let folder = try TemporaryDirectory("listing-plan")
        let (store, location) = try await TestStore.make(.postgres, in: folder)
        do {
            try await Self.seed(store)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
        let cluster = try await PostgresCluster.shared
        let plan = try await cluster.psql(
            """
            SET plan_cache_mode = \(planCacheMode);
            PREPARE listing(text, text) AS \(PostgresStore.ChangedOrdersStatement.sql);
            EXPLAIN (COSTS OFF) EXECUTE listing('dev7', '\(Writes.type)');
            """,
            database: try PostgresURL(location).database
        )
        let steps = plan.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(steps.contains { $0.contains("Index") && $0.contains(" on registrations") }, "registrations by an index: \(plan)")
        #expect(steps.contains { $0.contains("Index") && $0.contains(" on orders") }, "orders by an index: \(plan)")
        #expect(!steps.contains { $0.contains("Seq Scan") }, "no table walked: \(plan)")
        #expect(!steps.contains { $0.contains("Hash Join") || $0.contains("Merge Join") }, "a nested loop from the device: \(plan)")
    }
}
