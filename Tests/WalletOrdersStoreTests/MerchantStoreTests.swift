import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// Merchants, their keys, templates and limits, on both engines alike.
@Suite(.timeLimit(.minutes(5))) struct MerchantStoreTests {
    let start = Writes.start

    func order(
        _ id: String,
        merchant: Int64,
        limits: MerchantLimits = MerchantLimits(),
        assets: [String: Data]? = nil,
        number: String? = nil
    ) -> OrderWrite {
        let base = Writes.order(id, assets: assets)
        var document = base.document
        if let number { document["orderNumber"] = .string(number) }
        return OrderWrite(
            orderTypeIdentifier: base.orderTypeIdentifier,
            orderIdentifier: id,
            authenticationToken: base.authenticationToken,
            document: document,
            createdAt: base.createdAt,
            updatedAt: base.updatedAt,
            assets: assets,
            package: base.package,
            merchantID: merchant,
            limits: limits,
            // An update owes its devices a push, as the service's do.
            effects: WriteEffects(pushRegisteredDevices: true)
        )
    }

    @Test(arguments: StoreEngine.allCases)
    func merchantsAreMadeChangedAndListedWithTheirUsage(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let version = try await store.merchantsVersion()
            #expect(try await store.merchants().map(\.slug) == ["default"], "the migration made the default merchant")
            let acme = try await store.at(start).createMerchant(
                slug: "acme",
                displayName: "Acme",
                orderTypes: [Writes.type],
                limits: MerchantLimits(requestsPerSecond: 5)
            )
            #expect(acme.id != Merchant.defaultID && acme.status == .active && acme.limits.requestsPerSecond == 5)
            #expect(acme.orderTypes == [Writes.type] && acme.usage == MerchantUsage())
            await #expect(throws: StoreError.merchantExists) {
                try await store.at(start).createMerchant(slug: "acme", displayName: "Again", orderTypes: [], limits: MerchantLimits())
            }
            let suspended = try await store.at(start).updateMerchant(slug: "acme", MerchantChange(status: .suspended))
            #expect(suspended?.status == .suspended && suspended?.displayName == "Acme" && suspended?.limits.requestsPerSecond == 5)
            #expect(try await store.at(start).updateMerchant(slug: "nobody", MerchantChange(displayName: "x")) == nil)

            _ = try await store.createOrder(order("acme:1", merchant: acme.id, assets: ["photo.png": Data(count: 100)], number: "N-1"))
            _ = try await store.createOrder(order("acme:2", merchant: acme.id, number: "N-1"))
            _ = try await store.createOrder(order("mine", merchant: Merchant.defaultID, number: "N-1"))
            let listed = try await store.merchants()
            #expect(listed.first { $0.slug == "acme" }?.usage == MerchantUsage(orders: 2, assetBytes: 100))
            #expect(listed.first { $0.slug == "default" }?.usage.orders == 1)
            let numbered = try await store.orders(OrderFilter(merchant: acme.id, orderNumber: "N-1"), page: PageRequest(limit: 10))
            #expect(Set(numbered.records.map(\.orderIdentifier)) == ["acme:1", "acme:2"])
            #expect(numbered.records.allSatisfy { $0.orderNumber == "N-1" && $0.merchantID == acme.id })
            #expect(try await store.order(type: Writes.type, id: "acme:1")?.merchantID == acme.id)
            #expect(try await store.merchantsVersion() > version)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aSlugThatTheDefaultMerchantsIdentifiersUseIsRefused(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(order("shop:42", merchant: Merchant.defaultID))
            await #expect(throws: StoreError.merchantExists) {
                try await store.at(start).createMerchant(slug: "shop", displayName: "Shop", orderTypes: [], limits: MerchantLimits())
            }
            _ = try await store.at(start).createMerchant(slug: "sho", displayName: "Sho", orderTypes: [], limits: MerchantLimits())
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func keysAreStoredAsHashesRevokedAndTheirUseRecorded(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            let hash = Data((0..<32).map { UInt8($0) })
            try await store.addMerchantKey(MerchantKey(id: "0123456789ab", merchantID: acme.id, hash: hash, createdAt: start))
            try await store.recordKeyUse(["0123456789ab": start.addingTimeInterval(60)])
            var keys = try await store.merchantKeys(merchantID: acme.id)
            #expect(
                keys == [
                    MerchantKey(
                        id: "0123456789ab",
                        merchantID: acme.id,
                        hash: hash,
                        createdAt: start,
                        lastUsedAt: start.addingTimeInterval(60)
                    )
                ]
            )
            #expect(
                try await store.at(start).revokeMerchantKey(merchantID: Merchant.defaultID, keyID: "0123456789ab") == false,
                "another merchant's key is not revoked"
            )
            #expect(try await store.at(start.addingTimeInterval(90)).revokeMerchantKey(merchantID: acme.id, keyID: "0123456789ab"))
            #expect(try await store.at(start).revokeMerchantKey(merchantID: acme.id, keyID: "0123456789ab") == false)
            keys = try await store.merchantKeys(merchantID: nil)
            #expect(keys.map(\.revokedAt) == [start.addingTimeInterval(90)])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func templatesAreKeptWithAVersion(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            #expect(try await store.merchantTemplate(merchantID: acme.id) == nil)
            let set = try await store.at(start).setMerchantTemplate(slug: "acme", template: Data("template".utf8))
            #expect(set?.templateVersion == 1)
            let stored = try #require(try await store.merchantTemplate(merchantID: acme.id))
            #expect(stored.version == 1 && stored.data == Data("template".utf8))
            #expect(try await store.at(start).setMerchantTemplate(slug: "acme", template: nil)?.templateVersion == 2)
            #expect(try await store.merchantTemplate(merchantID: acme.id) == nil)
            #expect(try await store.at(start).setMerchantTemplate(slug: "nobody", template: nil) == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func limitsOnOrdersAndFilesRefuseTheWriteAndKeepNothingOfIt(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            let limits = MerchantLimits(maxOrders: 2, maxAssetBytes: 150)
            _ = try await store.createOrder(order("acme:1", merchant: acme.id, limits: limits, assets: ["a.png": Data(count: 100)]))
            await #expect(throws: StoreError.quotaExceeded(.maxAssetBytes)) {
                try await store.createOrder(order("acme:2", merchant: acme.id, limits: limits, assets: ["b.png": Data(count: 60)]))
            }
            #expect(try await store.order(type: Writes.type, id: "acme:2") == nil, "nothing of the refused order was kept")
            _ = try await store.createOrder(order("acme:2", merchant: acme.id, limits: limits, assets: ["b.png": Data(count: 50)]))
            await #expect(throws: StoreError.quotaExceeded(.maxOrders)) {
                try await store.createOrder(order("acme:3", merchant: acme.id, limits: limits))
            }
            #expect(try await store.order(type: Writes.type, id: "acme:3") == nil)
            // An update that frees room always passes; one that takes more than is left is refused and changes nothing.
            var smaller = order("acme:1", merchant: acme.id, limits: limits, assets: ["a.png": Data(count: 10)])
            _ = try await store.at(start).updateOrder(smaller, expectedVersion: 1)
            smaller = order("acme:1", merchant: acme.id, limits: limits, assets: ["a.png": Data(count: 200)])
            await #expect(throws: StoreError.quotaExceeded(.maxAssetBytes)) {
                try await store.at(start).updateOrder(smaller, expectedVersion: 2)
            }
            #expect(try await store.currentOrder(type: Writes.type, id: "acme:1")?.assets["a.png"]?.count == 10)
            #expect(try await store.merchants().first { $0.slug == "acme" }?.usage == MerchantUsage(orders: 2, assetBytes: 60))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aPushRetriedOrPutBackStaysItsMerchants(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await store.at(start).createMerchant(slug: "acme", displayName: "Acme", orderTypes: [], limits: MerchantLimits())
            let type = Writes.type
            _ = try await store.createOrder(order("acme:1", merchant: acme.id))
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "acme:1",
                pushToken: "t1",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            _ = try await store.at(start.addingTimeInterval(1)).updateOrder(order("acme:1", merchant: acme.id), expectedVersion: 1)
            func held(by merchant: Int64) async throws -> [PushStatus] {
                try await store.pushes(PushFilter(merchant: merchant), page: PageRequest(limit: 10)).records.map(\.status)
            }
            func claim(at seconds: TimeInterval) async throws -> [PushJob] {
                try await store.at(start.addingTimeInterval(seconds)).claimDuePushes(
                    types: [type],
                    limit: 10,
                    claim: OutboxClaim(owner: "me", lease: 30)
                )
            }
            #expect(try await held(by: acme.id) == [.pending])
            // Retried: a new pending row for the same push, still acme's, never the default merchant's.
            let first = try await claim(at: 2)
            #expect(first.count == 1)
            try await store.at(start.addingTimeInterval(2)).finishPushes(
                first.map { ($0, .retry(after: 1, reason: "429")) },
                owner: "me"
            )
            #expect(try await held(by: acme.id).contains(.pending))
            #expect(try await held(by: Merchant.defaultID).isEmpty)
            // Put back by a stopping instance: the same.
            #expect(try await claim(at: 4).count == 1)
            #expect(try await store.releasePushClaims(owner: "me") == 1)
            #expect(try await held(by: acme.id).contains(.pending))
            #expect(try await held(by: Merchant.defaultID).isEmpty)
        }
    }
}
