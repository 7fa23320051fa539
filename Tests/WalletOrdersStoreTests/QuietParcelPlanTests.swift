import Foundation
import GRDB
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersPostgres
@testable import WalletOrdersSQLite

/// The look for stalled parcels reads the parcels that may stall alone (`order_tracking_quiet`), never the
/// delivered ones a merchant keeps by the hundred thousand, once the planner has statistics of a table shaped like
/// production's: most parcels delivered, a few in transit. This holds the plan, not a timing.
@Suite(.timeLimit(.minutes(5))) struct QuietParcelPlanTests {
    static let orders = 20_000
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// Orders `o0`… of two merchants, each following a parcel: one in 50 in transit (all of them the default merchant's), the rest delivered.
    static func seed(_ store: any OrderStore) async throws {
        let document = SampleOrder.document(orderTypeIdentifier: Writes.type)
        let orders = (0..<orders).map { index in
            ImportedOrder(
                orderTypeIdentifier: Writes.type,
                orderIdentifier: "o\(index)",
                authenticationToken: "token-of-order-\(index)",
                document: document,
                createdAt: start,
                updatedAt: start,
                package: nil,
                merchantID: index % 2 == 0 ? Merchant.defaultID : Merchant.defaultID + 1,
                tracking: [
                    TrackedParcel(fulfillmentIdentifier: "f1", trackingNumber: "N\(index)", carrier: nil, inTransit: index % 50 == 0)
                ]
            )
        }
        _ = try await store.createMerchant(slug: "other", displayName: "Other", orderTypes: [], limits: MerchantLimits())
        try await store.at(start).importRecords(orders: orders, registrations: [])
        try await store.optimize()
    }

    @Test func sqliteFindsQuietParcelsThroughTheirIndex() async throws {
        try await TestStore.with(.sqlite) { store in
            try await Self.seed(store)
            let sqlite = try #require(store as? SQLiteStore)
            let plan = try await sqlite.pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: "EXPLAIN QUERY PLAN \(SQLiteStore.quietParcelsSQL)",
                    arguments: [Merchant.defaultID, Self.start.unixSeconds + 1, 200]
                ).map { $0["detail"] as String }
            }
            #expect(plan.count == 1 && plan.first?.contains("USING INDEX order_tracking_quiet") == true, "\(plan)")
            let quiet = try await store.quietParcels(merchantID: Merchant.defaultID, heardBefore: Self.start.addingTimeInterval(1), limit: 1_000)
            #expect(quiet.count == Self.orders / 50, "the default merchant's parcels in transit")
            #expect(quiet.allSatisfy { $0.merchantID == Merchant.defaultID && $0.parcel.inTransit == true })
        }
    }

    @Test func postgresFindsQuietParcelsThroughTheirIndex() async throws {
        let folder = try TemporaryDirectory("quiet-plan")
        let (store, location) = try await TestStore.make(.postgres, in: folder)
        do {
            try await Self.seed(store)
            let quiet = try await store.quietParcels(merchantID: Merchant.defaultID, heardBefore: Self.start.addingTimeInterval(1), limit: 1_000)
            #expect(quiet.count == Self.orders / 50)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
        let query = PostgresStore.quietParcelsQuery(merchantID: Merchant.defaultID, heardBefore: Self.start.addingTimeInterval(1), limit: 200)
        let sql = query.sql.replacingOccurrences(of: "$1", with: "\(Merchant.defaultID)")
            .replacingOccurrences(of: "$2", with: "\(Self.start.unixSeconds + 1)").replacingOccurrences(of: "$3", with: "200")
        let plan = try await PostgresCluster.shared.psql("EXPLAIN (COSTS OFF) \(sql);", database: try PostgresURL(location).database)
        #expect(plan.contains("order_tracking_quiet"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }
}
