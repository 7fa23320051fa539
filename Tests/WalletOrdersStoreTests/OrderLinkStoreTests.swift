import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// Download links on each engine: used up by a first download but for the same client's retry, reusable, expired,
/// revoked, capped per order, pruned.
@Suite(.timeLimit(.minutes(5))) struct OrderLinkStoreTests {
    let type = Writes.type
    let start = Writes.start

    func link(_ id: String, order: String = "A-1001", reusable: Bool = false, lifetime: TimeInterval = 600) -> OrderLink {
        OrderLink(
            id: id,
            hash: Data("hash of \(id)".utf8),
            merchantID: Merchant.defaultID,
            orderTypeIdentifier: type,
            orderIdentifier: order,
            reusable: reusable,
            createdAt: start,
            expiresAt: start.addingTimeInterval(lifetime)
        )
    }

    func use(_ store: any OrderStore, _ id: String, by client: String, at seconds: TimeInterval) async throws -> OrderLinkUse? {
        try await store.at(start.addingTimeInterval(seconds)).useOrderLink(hash: Data("hash of \(id)".utf8), client: client, grace: 30) { use in
            .linkDownloaded(linkID: use.linkID, downloads: use.downloads)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aOneTimeLinkServesItsFirstClientAndItsRetryOnly(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            try await store.addOrderLink(link("lnk_once"), maxLive: 10)
            let first = try await use(store, "lnk_once", by: "alice", at: 1)
            #expect(
                first
                    == OrderLinkUse(
                        linkID: "lnk_once",
                        merchantID: Merchant.defaultID,
                        orderTypeIdentifier: type,
                        orderIdentifier: "A-1001",
                        downloads: 1
                    )
            )
            #expect(try await use(store, "lnk_once", by: "mallory", at: 2) == nil, "another client: used up")
            #expect(try await use(store, "lnk_once", by: "alice", at: 20)?.downloads == 2, "the same client's retry, within the grace")
            #expect(try await use(store, "lnk_once", by: "alice", at: 40) == nil, "after the grace: used up")
            #expect(try await use(store, "lnk_unknown", by: "alice", at: 1) == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aReusableLinkServesAnyoneUntilItExpiresOrIsRevoked(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            try await store.addOrderLink(link("lnk_mail", reusable: true, lifetime: 100), maxLive: 10)
            try await store.addOrderLink(link("lnk_page"), maxLive: 10)
            for (index, client) in ["alice", "bob", "carol"].enumerated() {
                #expect(try await use(store, "lnk_mail", by: client, at: 10)?.downloads == index + 1)
            }
            #expect(try await use(store, "lnk_mail", by: "alice", at: 100) == nil, "expired")
            #expect(try await store.at(start).revokeOrderLink(id: "lnk_page", merchantID: Merchant.defaultID, type: type, orderID: "A-1001"))
            #expect(
                try await store.at(start).revokeOrderLink(id: "lnk_page", merchantID: Merchant.defaultID, type: type, orderID: "A-1001") == false
            )
            #expect(try await use(store, "lnk_page", by: "alice", at: 1) == nil, "revoked")
            // Another merchant, or another order, cannot revoke it.
            try await store.addOrderLink(link("lnk_other"), maxLive: 10)
            #expect(try await store.at(start).revokeOrderLink(id: "lnk_other", merchantID: 99, type: type, orderID: "A-1001") == false)
            #expect(try await store.at(start).revokeOrderLink(id: "lnk_other", merchantID: Merchant.defaultID, type: type, orderID: "A-2") == false)
            #expect(try await use(store, "lnk_other", by: "alice", at: 1) != nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anOrderHoldsAtMostItsCapOfLiveLinksAndExpiredOnesArePruned(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            _ = try await store.createOrder(Writes.order("A-1002"))
            try await store.addOrderLink(link("lnk_1"), maxLive: 2)
            try await store.addOrderLink(link("lnk_2"), maxLive: 2)
            await #expect(throws: StoreError.tooManyLinks) { try await store.addOrderLink(link("lnk_3"), maxLive: 2) }
            // A revoked link makes room; another order has its own.
            _ = try await store.at(start).revokeOrderLink(id: "lnk_1", merchantID: Merchant.defaultID, type: type, orderID: "A-1001")
            try await store.addOrderLink(link("lnk_3"), maxLive: 2)
            try await store.addOrderLink(link("lnk_4", order: "A-1002", lifetime: 60), maxLive: 2)
            #expect(try await store.at(start.addingTimeInterval(61)).pruneOrderLinks(expiredMoreThan: 0) == 1)
            #expect(try await store.at(start.addingTimeInterval(61)).pruneOrderLinks(expiredMoreThan: 0) == 0)
            #expect(try await use(store, "lnk_3", by: "alice", at: 1) != nil)
        }
    }
}
