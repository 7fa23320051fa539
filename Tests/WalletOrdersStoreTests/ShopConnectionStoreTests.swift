import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// Connected shops, on each engine: kept per merchant and bounded, changed and deleted only by their merchant, and a
/// platform's webhook taken once however often it is sent.
@Suite(.timeLimit(.minutes(5))) struct ShopConnectionStoreTests {
    let start = Writes.start

    func connection(_ id: String, merchant: Int64, secret: String = "shpss_0123456789abcdef") -> ShopConnection {
        ShopConnection(
            id: id,
            merchantID: merchant,
            kind: .shopify,
            shop: "acme.myshopify.com",
            secret: secret,
            orderManagementURL: "https://acme.example/orders/{id}",
            createdAt: start,
            updatedAt: start
        )
    }

    @Test(arguments: StoreEngine.allCases)
    func aMerchantsShopsAreKeptBoundedAndChangedByItAlone(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            let bravo = try await store.createMerchant(slug: "bravo", displayName: "Bravo", orderTypes: [], limits: MerchantLimits())
            try await store.addShopConnection(connection("shp_1", merchant: acme.id), maxPerMerchant: 2)
            try await store.addShopConnection(connection("shp_2", merchant: acme.id), maxPerMerchant: 2)
            await #expect(throws: StoreError.tooManyShops) {
                try await store.addShopConnection(connection("shp_3", merchant: acme.id), maxPerMerchant: 2)
            }
            try await store.addShopConnection(connection("shp_4", merchant: bravo.id), maxPerMerchant: 2)
            #expect(try await store.shopConnections(merchantID: acme.id).map(\.id) == ["shp_1", "shp_2"])
            #expect(try await store.shopConnections(merchantID: nil).count == 3)
            #expect(try await store.shopConnection(id: "shp_1") == connection("shp_1", merchant: acme.id))

            // Another merchant can neither change nor delete it.
            var stolen = connection("shp_1", merchant: bravo.id, secret: "shpss_stolen-secret-000")
            #expect(try await store.replaceShopConnection(stolen) == false)
            #expect(try await store.deleteShopConnection(id: "shp_1", merchantID: bravo.id) == false)
            #expect(try await store.shopConnection(id: "shp_1")?.secret == "shpss_0123456789abcdef")
            stolen = connection("shp_1", merchant: acme.id, secret: "shpss_rotated-secret-00")
            #expect(try await store.replaceShopConnection(stolen))
            #expect(try await store.shopConnection(id: "shp_1")?.secret == "shpss_rotated-secret-00")
            #expect(try await store.deleteShopConnection(id: "shp_1", merchantID: acme.id))
            #expect(try await store.shopConnection(id: "shp_1") == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aWebhookIsTakenOnceUntilItIsPruned(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            try await store.addShopConnection(connection("shp_1", merchant: acme.id), maxPerMerchant: 10)
            try await store.addShopConnection(connection("shp_2", merchant: acme.id), maxPerMerchant: 10)
            #expect(try await store.hasTakenShopWebhook(connectionID: "shp_1", webhookID: "w-1") == false)
            #expect(try await store.takeShopWebhook(connectionID: "shp_1", webhookID: "w-1"))
            #expect(try await store.hasTakenShopWebhook(connectionID: "shp_1", webhookID: "w-1"))
            #expect(try await store.takeShopWebhook(connectionID: "shp_1", webhookID: "w-1") == false, "sent again")
            #expect(try await store.hasTakenShopWebhook(connectionID: "shp_2", webhookID: "w-1") == false, "another shop's id space")
            #expect(try await store.takeShopWebhook(connectionID: "shp_2", webhookID: "w-1"))
            #expect(try await store.at(start.addingTimeInterval(100)).pruneShopWebhooks(olderThan: 50) == 2)
            #expect(try await store.hasTakenShopWebhook(connectionID: "shp_1", webhookID: "w-1") == false, "pruned")
            #expect(try await store.takeShopWebhook(connectionID: "shp_1", webhookID: "w-1"))
            // Deleting a connection deletes what was taken from it.
            #expect(try await store.deleteShopConnection(id: "shp_1", merchantID: acme.id))
            #expect(try await store.pruneShopWebhooks(olderThan: -1_000) == 0)
        }
    }
}
