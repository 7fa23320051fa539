import Foundation
import Testing
import WalletOrdersMigrations
import WalletOrdersModel
import WalletOrdersPostgres
import WalletOrdersStore
import WalletOrdersTesting

/// What an order's version history keeps, on each engine (issue 39, L1): a bounded record of what each version
/// changed, counted in its merchant's storage, read a page at a time.
@Suite(.timeLimit(.minutes(5))) struct VersionHistoryStoreTests {
    let start = Writes.start

    /// A fresh store of `engine` and where it lives, closed after `body`.
    func withStore(_ engine: StoreEngine, _ body: (any OrderStore, String) async throws -> Void) async throws {
        let folder = try TemporaryDirectory("history")
        let (store, location) = try await TestStore.make(engine, in: folder)
        do {
            try await body(store, location)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    /// What `sql` prints, run by the engine's own tool on the database at `location`.
    func run(_ engine: StoreEngine, at location: String, _ sql: String) async throws -> String {
        switch engine {
        case .sqlite:
            let result = try await Command.run("sqlite3", [location, sql])
            guard result.status == 0 else { throw StoreError.unexpected("sqlite3: \(result.error)") }
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        case .postgres:
            let output = try await PostgresCluster.shared.psql(sql, database: try PostgresURL(location).database)
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The bytes of change records the database holds for `id`, read by the engine's own tool.
    func storedRecordBytes(_ engine: StoreEngine, at location: String, id: String) async throws -> Int {
        let bytes = engine == .sqlite ? "length(CAST(changes AS BLOB))" : "octet_length(changes)"
        let sql = "SELECT COALESCE(SUM(\(bytes)), 0) FROM order_versions WHERE order_identifier = '\(id)'"
        return Int(try await run(engine, at: location, sql)) ?? -1
    }

    /// The next version of `id`, whose change record a caller made as large as the outside test's: 150 members, each
    /// named with 30 KB, added (or removed), none of it cut.
    func wideVersion(_ id: String, merchant: Int64, limits: MerchantLimits = MerchantLimits(), at seconds: TimeInterval) -> OrderWrite {
        let base = Writes.order(id, at: start.addingTimeInterval(seconds))
        let changes = (0..<150).map { index in
            JSONChange(path: "x\(index)-" + String(repeating: "n", count: 30_000), before: nil, after: .string("v"))
        }
        return OrderWrite(
            orderTypeIdentifier: base.orderTypeIdentifier,
            orderIdentifier: id,
            authenticationToken: base.authenticationToken,
            document: base.document,
            createdAt: base.createdAt,
            updatedAt: base.updatedAt,
            assets: nil,
            package: base.package,
            merchantID: merchant,
            limits: limits,
            changes: JSONChanges(listed: changes)
        )
    }

    func order(_ id: String, merchant: Int64, limits: MerchantLimits = MerchantLimits(), assets: [String: Data]? = nil) -> OrderWrite {
        let base = Writes.order(id, assets: assets)
        return OrderWrite(
            orderTypeIdentifier: base.orderTypeIdentifier,
            orderIdentifier: id,
            authenticationToken: base.authenticationToken,
            document: base.document,
            createdAt: base.createdAt,
            updatedAt: base.updatedAt,
            assets: assets,
            package: base.package,
            merchantID: merchant,
            limits: limits
        )
    }

    @Test(arguments: StoreEngine.allCases)
    func eightVersionsOfWideChangesKeepBoundedRecordsThatTheMerchantsStorageCounts(engine: StoreEngine) async throws {
        try await withStore(engine) { store, location in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            _ = try await store.createOrder(order("acme:1", merchant: acme.id))
            for round in 1...8 {
                _ = try await store.at(start).updateOrder(wideVersion("acme:1", merchant: acme.id, at: Double(round)), expectedVersion: round)
            }
            let versions = try await store.versions(type: Writes.type, id: "acme:1")
            #expect(versions.map(\.version) == Array(1...9))
            #expect(versions[0].changes == nil && versions[0].changesLeftOut == 0, "a first version records no changes")
            for version in versions.dropFirst() {
                let listed = try #require(version.changes)
                #expect(listed.count + version.changesLeftOut == 150, "every change listed or counted")
                #expect(version.changesLeftOut > 0, "the record is full, and says how many it left out")
                #expect(listed.count <= OrderVersion.maxChanges)
                #expect(listed.allSatisfy { $0.path.utf8.count <= OrderVersion.maxPathBytes && $0.path.hasSuffix("…") })
                #expect(listed.first?.path.hasPrefix("x0-nnn") == true)
            }
            // Before: each version kept its 150 paths whole, 4.5 MB, and eight of them 36 MB that no limit counted.
            let stored = try await storedRecordBytes(engine, at: location, id: "acme:1")
            #expect(stored > 0 && stored <= 8 * OrderVersion.maxRecordBytes, "\(stored) bytes of history")
            let usage = try #require(try await store.merchants().first { $0.slug == "acme" }?.usage)
            #expect(usage == MerchantUsage(orders: 1, assetBytes: 0, historyBytes: stored), "the merchant's storage counts it")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aVersionWhoseHistoryWouldPassTheMerchantsStorageIsRefusedAndKeepsNothing(engine: StoreEngine) async throws {
        try await withStore(engine) { store, location in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            // Files and history together: 100 bytes of files, then room for two full records but not three.
            let limits = MerchantLimits(maxAssetBytes: 100 + 2 * OrderVersion.maxRecordBytes + 1_000)
            _ = try await store.createOrder(order("acme:1", merchant: acme.id, limits: limits, assets: ["a.png": Data(count: 100)]))
            for round in 1...2 {
                _ = try await store.at(start).updateOrder(
                    wideVersion("acme:1", merchant: acme.id, limits: limits, at: Double(round)),
                    expectedVersion: round
                )
            }
            let held = try #require(try await store.merchants().first { $0.slug == "acme" }?.usage)
            #expect(held.assetBytes == 100 && held.historyBytes > OrderVersion.maxRecordBytes)
            await #expect(throws: StoreError.quotaExceeded(.maxAssetBytes)) {
                try await store.at(start).updateOrder(wideVersion("acme:1", merchant: acme.id, limits: limits, at: 3), expectedVersion: 3)
            }
            #expect(try await store.versions(type: Writes.type, id: "acme:1").count == 3, "the refused version was not kept")
            #expect(try await store.order(type: Writes.type, id: "acme:1")?.version == 3)
            #expect(try await store.merchants().first { $0.slug == "acme" }?.usage == held, "nor counted")
            #expect(try await storedRecordBytes(engine, at: location, id: "acme:1") == held.historyBytes)
            // A version that adds nothing to the storage still passes: one with no change record.
            let plain = order("acme:1", merchant: acme.id, limits: limits)
            #expect(try await store.at(start).updateOrder(plain, expectedVersion: 3).order.version == 4)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theMigrationCountsTheHistoryADatabaseHeldBefore(engine: StoreEngine) async throws {
        try await withStore(engine) { store, location in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            _ = try await store.createOrder(order("acme:1", merchant: acme.id))
            _ = try await store.createOrder(order("A-1", merchant: Merchant.defaultID))
            for round in 1...3 {
                _ = try await store.at(start).updateOrder(wideVersion("acme:1", merchant: acme.id, at: Double(round)), expectedVersion: round)
            }
            _ = try await store.at(start).updateOrder(wideVersion("A-1", merchant: Merchant.defaultID, at: 1), expectedVersion: 1)
            let counted = try await store.merchants().map(\.usage)
            #expect(counted.allSatisfy { $0.historyBytes > 0 })
            // A database from before the migration counted nothing; the migration's own statement counts what it holds.
            let migration = try #require(
                try Migrations.all(for: engine == .sqlite ? .sqlite : .postgres).first { $0.name.hasSuffix("_version_history_bytes") }
            )
            let count = migration.sql.split(separator: "\n").filter { !$0.hasPrefix("--") && !$0.hasPrefix("ALTER TABLE") }
            _ = try await run(engine, at: location, "UPDATE merchants SET history_bytes = 0")
            #expect(try await store.merchants().allSatisfy { $0.usage.historyBytes == 0 })
            _ = try await run(engine, at: location, count.joined(separator: "\n"))
            #expect(try await store.merchants().map(\.usage) == counted)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func versionsAreReadNewestFirstOnePageAtATime(engine: StoreEngine) async throws {
        try await withStore(engine) { store, _ in
            _ = try await store.createOrder(Writes.order("A-1"))
            for version in 1...4 { try await store.update("A-1", at: start.addingTimeInterval(Double(version))) }
            let first = try await store.versions(type: Writes.type, id: "A-1", page: PageRequest(limit: 2))
            #expect(first.records.map(\.version) == [5, 4] && first.next == 4)
            let second = try await store.versions(type: Writes.type, id: "A-1", page: PageRequest(limit: 2, before: first.next))
            #expect(second.records.map(\.version) == [3, 2] && second.next == 2)
            let last = try await store.versions(type: Writes.type, id: "A-1", page: PageRequest(limit: 2, before: second.next))
            #expect(last.records.map(\.version) == [1] && last.next == nil)
            #expect(try await store.versions(type: Writes.type, id: "A-1").map(\.version) == [1, 2, 3, 4, 5])
            #expect(try await store.versions(type: Writes.type, id: "nobody", page: PageRequest(limit: 2)).records.isEmpty)
        }
    }
}
