import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// What a change causes is decided by the service and stored as it is: every engine queues exactly the notices a
/// write carries, with the bytes the service built, for the merchant whose order it is; and the webhook outbox keeps
/// its leases as the push outbox does.
@Suite(.timeLimit(.minutes(5))) struct SideEffectStoreTests {
    let type = Writes.type
    let start = Writes.start

    /// A store with the merchant `acme`, its endpoint listening for every event, and its order `acme:1`.
    private func prepared(_ store: any OrderStore) async throws -> Merchant {
        let acme = try await store.at(start).createMerchant(
            slug: "acme",
            displayName: "Acme",
            orderTypes: [],
            limits: MerchantLimits()
        )
        try await store.addWebhookEndpoint(
            WebhookEndpoint(
                id: "whk_acme",
                merchantID: acme.id,
                url: "https://hooks.example.com/acme",
                events: WebhookEvent.allCases,
                secret: "whsec_c2VjcmV0",
                createdAt: start,
                updatedAt: start
            ),
            maxPerMerchant: 10
        )
        var order = Writes.order("acme:1")
        order = OrderWrite(
            orderTypeIdentifier: order.orderTypeIdentifier,
            orderIdentifier: order.orderIdentifier,
            authenticationToken: order.authenticationToken,
            document: order.document,
            createdAt: order.createdAt,
            updatedAt: order.updatedAt,
            assets: nil,
            package: order.package,
            merchantID: acme.id
        )
        _ = try await store.createOrder(order)
        return acme
    }

    /// Every delivery to acme's endpoint, newest first.
    private func deliveries(_ store: any OrderStore) async throws -> [WebhookDelivery] {
        let acme = try #require(try await store.merchants().first { $0.slug == "acme" })
        let page = try await store.webhookDeliveries(endpointID: "whk_acme", merchantID: acme.id, page: PageRequest(limit: 50))
        return try #require(page).records
    }

    @Test(arguments: StoreEngine.allCases)
    func aWriteQueuesTheNoticesItCarriesAndNoOthers(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await prepared(store)
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "acme:1",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: nil
            )
            #expect(try await deliveries(store).isEmpty, "a registration told nothing when the service asked for nothing")
            #expect(try await store.pushCounts().outboxDepth == 0)

            // An update carrying no effects writes its version and causes nothing.
            let current = try #require(try await store.currentOrder(type: type, id: "acme:1"))
            var quiet = Writes.order("acme:1", status: "completed", at: start.addingTimeInterval(1), package: "v2")
            quiet = OrderWrite(
                orderTypeIdentifier: quiet.orderTypeIdentifier,
                orderIdentifier: quiet.orderIdentifier,
                authenticationToken: quiet.authenticationToken,
                document: quiet.document,
                createdAt: quiet.createdAt,
                updatedAt: quiet.updatedAt,
                assets: nil,
                package: quiet.package,
                merchantID: acme.id
            )
            let update = try await store.at(start.addingTimeInterval(1)).updateOrder(quiet, expectedVersion: current.order.version)
            #expect(update.pushesQueued == 0)
            #expect(try await store.pushCounts().outboxDepth == 0)
            #expect(try await deliveries(store).isEmpty)

            // One carrying a push and two notices queues exactly those, with the bytes the service built.
            var loud = quiet
            loud.effects = WriteEffects(
                pushRegisteredDevices: true,
                webhooks: [.orderUpdated(version: 3, status: .completed), .linkDownloaded(linkID: "lnk_x", downloads: 7)]
            )
            let second = try await store.at(start.addingTimeInterval(2)).updateOrder(loud, expectedVersion: 2)
            #expect(second.pushesQueued == 1)
            let queued = try await deliveries(store)
            #expect(Set(queued.map(\.event)) == [.orderUpdated, .linkDownloaded])
            #expect(
                Set(queued.map(\.detail))
                    == Set(loud.effects.webhooks.map(\.detail))
            )
            #expect(queued.allSatisfy { $0.orderIdentifier == "acme:1" && $0.occurredAt == start.addingTimeInterval(2) })
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aFailedPushTellsTheMerchantOfItsOutboxRowWithTheNoticeItCarries(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let acme = try await prepared(store)
            for device in ["d1", "d2"] {
                _ = try await store.at(start).register(
                    device: device,
                    type: type,
                    id: "acme:1",
                    pushToken: device,
                    maxDevices: nil,
                    firstDevice: nil
                )
            }
            var write = Writes.order("acme:1", status: "completed", at: start.addingTimeInterval(1), package: "v2")
            write = OrderWrite(
                orderTypeIdentifier: write.orderTypeIdentifier,
                orderIdentifier: write.orderIdentifier,
                authenticationToken: write.authenticationToken,
                document: write.document,
                createdAt: write.createdAt,
                updatedAt: write.updatedAt,
                assets: nil,
                package: write.package,
                merchantID: acme.id,
                effects: WriteEffects(pushRegisteredDevices: true)
            )
            _ = try await store.at(start.addingTimeInterval(1)).updateOrder(write, expectedVersion: 1)
            let before = try await deliveries(store).count
            let jobs = try await store.at(start.addingTimeInterval(2)).claimDuePushes(
                types: [type],
                limit: 10,
                claim: OutboxClaim(owner: "me", lease: 30)
            )
            #expect(jobs.count == 2)
            let notice = WebhookNotice.pushFailed(attempts: 1, reason: "BadDeviceToken")
            try await store.finishPushes(
                [(jobs[0], .tokenRejected(reason: "BadDeviceToken", notice: notice)), (jobs[1], .failed(reason: "x", notice: nil))],
                owner: "me"
            )
            let failed = try await deliveries(store).filter { $0.event == .pushFailed }
            #expect(try await deliveries(store).count == before + 1, "one notice carried, one delivery")
            #expect(failed.map(\.detail) == [notice.detail])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aDeliveryWhoseLeaseRanOutIsTakenBackAndARenewedOneIsNot(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await prepared(store)
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "acme:1",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            let dead = try await store.at(start.addingTimeInterval(1)).claimDueDeliveries(
                limit: 10,
                claim: OutboxClaim(owner: "dead", lease: 30)
            )
            #expect(dead.count == 1 && dead[0].delivery.attempts == 1)
            // Nothing else is due while the claim holds: a claim takes nothing back itself.
            #expect(try await store.at(start.addingTimeInterval(40)).claimDueDeliveries(limit: 10, claim: OutboxClaim(owner: "b", lease: 30)).isEmpty)
            #expect(try await store.at(start.addingTimeInterval(20)).reclaimExpiredDeliveryClaims() == 0)
            #expect(try await store.renewDeliveryClaims(owner: "dead", lease: 30) == 1)
            #expect(try await store.at(start.addingTimeInterval(45)).reclaimExpiredDeliveryClaims() == 0, "renewed until 50")
            #expect(try await store.at(start.addingTimeInterval(51)).reclaimExpiredDeliveryClaims() == 1)
            let again = try await store.claimDueDeliveries(limit: 10, claim: OutboxClaim(owner: "live", lease: 30))
            #expect(again.map(\.delivery.id) == dead.map(\.delivery.id))
            // Its outcome, recorded by the worker that lost it, is left alone.
            try await store.finishDeliveries([(dead[0], .delivered(statusCode: 200))], owner: "dead")
            #expect(try await deliveries(store).first?.status == .sending)
            #expect(try await store.releaseDeliveryClaims(owner: "live") == 1)
            #expect(try await deliveries(store).first?.status == .pending)
        }
    }
}
