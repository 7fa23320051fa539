import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// An order's version history through the merchant API and the console, on each engine (issue 39, L1): what wide
/// merge patches leave in it, what the merchant's storage counts, and how much of it the order's page shows.
@Suite(.timeLimit(.minutes(10))) struct VersionHistoryTests {
    static let adminKey = "admin-key-for-version-history-0123456789"

    /// 150 names of 30 KB each, random hexadecimal digits: a package compresses them only about twice, as it does
    /// any order's text.
    static let wideNames = (0..<150).map { index in
        let digits = Array("0123456789abcdef".utf8)
        return "x\(index)-" + String(decoding: (0..<30_000).map { _ in digits[Int.random(in: 0..<16)] }, as: UTF8.self)
    }

    /// The outside test's merge patch: 150 members whose names are 30 KB each, set, or removed when `removing`.
    static func wideMembers(removing: Bool) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: wideNames.map { ($0, removing ? JSONValue.null : .string("v")) }))
    }

    /// The wide patch through the service, as the merchant API's route calls it: a 4.5 MB body through a debug build's
    /// JSON parser takes longer on a loaded machine than the test client waits (20 s), and its parsing is not what
    /// this checks.
    func widePatch(
        _ client: ServiceHarness.Client,
        _ order: ServiceHarness.OrderDetails,
        removing: Bool,
        merchant slug: String
    )
        async throws -> WrittenOrder
    {
        let merchant = try #require(try await client.service.merchants.merchant(slug: slug))
        let patch = OrderPatch(changes: Self.wideMembers(removing: removing).objectValue ?? [:])
        return try await client.service.patch(type: order.type, id: order.id, patch, for: merchant)
    }

    func page(_ client: ServiceHarness.Client, _ uri: String) async throws -> TestResponse {
        try await client.request(.get, uri, headers: [.authorization: "Bearer \(Self.adminKey)"])
    }

    @Test(arguments: StoreEngine.allCases)
    func eightWidePatchesKeepABoundedHistoryThatTheStorageLimitCountsAndTheOrdersPageStaysSmall(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey) { client in
            let key = try await client.addMerchant("wide")
            let order = try await client.createOrder(id: "W-1", key: key)
            for round in 0..<8 {
                _ = try await widePatch(client, order, removing: round % 2 == 1, merchant: "wide")
            }
            let versions = try await client.store.versions(type: order.type, id: order.id)
            #expect(versions.count == 9)
            for version in versions.dropFirst() {
                let listed = try #require(version.changes)
                #expect(listed.count + version.changesLeftOut == 150)
                #expect(listed.allSatisfy { $0.path.utf8.count <= OrderVersion.maxPathBytes })
            }
            // Before: 36 MB of history, counted nowhere.
            let usage = try #require(try await client.store.merchants().first { $0.slug == "wide" }?.usage)
            #expect(usage.historyBytes > 0 && usage.historyBytes <= 8 * OrderVersion.maxRecordBytes, "\(usage)")

            // One more leaves the members in the order: its page shows the start of its 4.5 MB and says so.
            _ = try await widePatch(client, order, removing: false, merchant: "wide")
            let html = try await page(client, "/admin/order?type=\(order.type)&id=\(order.id)")
            #expect(html.status == .ok)
            // Before: 40 MB of HTML.
            #expect(html.body.readableBytes < 1_000_000, "\(html.body.readableBytes) bytes")
            let text = String(buffer: html.body)
            #expect(text.contains("Versions 1 to 10 of 10, newest first."))
            #expect(text.contains(#"<li class="more">and "#))
            #expect(text.contains("its first \(256 * 1_024) are shown"))
            #expect(!text.contains("Older versions"))

            // The limit on files counts history too: a merchant with little room left is refused the next version.
            let small = try await client.addMerchant("small", limits: MerchantLimits(maxAssetBytes: 2 * OrderVersion.maxRecordBytes))
            let tight = try await client.createOrder(id: "S-1", key: small)
            _ = try await widePatch(client, tight, removing: false, merchant: "small")
            _ = try await widePatch(client, tight, removing: true, merchant: "small")
            do {
                _ = try await widePatch(client, tight, removing: false, merchant: "small")
                Issue.record("a version past the limit was written")
            } catch let error as OrderServiceError {
                guard case .limitReached(let limit, _) = error else { throw error }
                #expect(limit == .maxAssetBytes)
                #expect(error.description.contains("version history"), "\(error)")
            }
            #expect(try await client.store.order(type: tight.type, id: tight.id)?.version == 3)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func trackingEventsWhoseVersionWouldPassTheStorageLimitAreInvalidAndTheRestStillApply(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run { client in
            // Room for no history at all: a version with a change record passes the limit.
            let full = try await client.addMerchant("full", limits: MerchantLimits(maxAssetBytes: 1))
            let roomy = try await client.addMerchant("roomy")
            let partner = try await PartnerTrackingTests.addPartner("parcelco", for: ["full", "roomy"], client)
            let stuck = try await PartnerTrackingTests.order("F-1", tracking: "1ZFULL", key: full, client)
            let moving = try await PartnerTrackingTests.order("R-1", tracking: "1ZROOMY", key: roomy, client)
            let answer = try await client.merchant(
                .post,
                "/api/v1/tracking-events",
                json: PartnerTrackingTests.events([
                    ["id": "e1", "trackingNumber": "1ZFULL", "status": "in_transit", "occurredAt": "2026-11-24T18:00:00Z"],
                    ["id": "e2", "trackingNumber": "1ZROOMY", "status": "in_transit", "occurredAt": "2026-11-24T18:00:00Z"],
                ]),
                key: partner
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let results = PartnerTrackingTests.results(answer)
            #expect(results.first?["result"] == .string("invalid"), "\(results)")
            #expect(results.first?["problems"]?.arrayValue?.first?["message"]?.stringValue?.contains("maxAssetBytes") == true)
            #expect(results.last?["result"] == .string("applied"), "the other merchant's order still moves")
            #expect(try await client.store.order(type: stuck.type, id: stuck.id)?.version == 1)
            #expect(try await client.store.order(type: moving.type, id: moving.id)?.version == 2)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theOrdersPageShowsItsNewestVersionsAndLinksToOlderOnes(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey) { client in
            let order = try await client.createOrder(id: "P-1")
            for number in 1...24 {
                #expect(try await client.patch(order, .object(["orderNumber": .string("N-\(number)")])).status == .ok)
            }
            let uri = "/admin/order?type=\(order.type)&id=\(order.id)"
            let newest = String(buffer: try await page(client, uri).body)
            #expect(newest.contains("Versions 6 to 25 of 25, newest first."))
            #expect(newest.contains("<td>25</td>") && !newest.contains("<td>5</td>"))
            #expect(newest.contains(#"&amp;before=6" rel="next">Older versions</a>"#))
            let olderPage = String(buffer: try await page(client, "\(uri)&before=6").body)
            #expect(olderPage.contains("Versions 1 to 5 of 25, newest first."))
            #expect(olderPage.contains("created") && olderPage.contains("Newest versions") && !olderPage.contains("Older versions"))
            for bad in ["0", "-1", "x", "99999999999999999999"] {
                let answer = try await page(client, "\(uri)&before=\(bad)")
                #expect(answer.status == .badRequest && answer.json["problems"]?.arrayValue?.first?["path"] == .string("before"))
            }
        }
    }
}
