import Foundation
import Logging
import Synchronization
import Testing
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting
import WalletOrdersWebhookModel
import WalletOrdersWebhooks

/// Webhooks from the change that causes them to a real receiver on loopback: the store queues each event in the
/// change's transaction, the worker signs and sends it with libcurl, and the Standard Webhooks package checks
/// every signature.
@Suite(.timeLimit(.minutes(5))) struct WebhookDeliveryTests {
    let type = DevelopmentKeys.orderType

    /// A service over `store` whose webhooks may reach loopback (the receiver), or not.
    static func service(_ store: any OrderStore, allowPrivate: Bool = true) throws -> OrderService {
        let type = OrderType(
            identifier: DevelopmentKeys.orderType,
            builder: PackageBuilder(identity: DevelopmentKeys.shared.identity),
            template: try OrderTemplate(directory: SampleOrder.templateFolder)
        )
        return OrderService(
            store: StoreCapabilities(store),
            orderTypes: [type],
            webServiceURL: "https://orders.example.com",
            webhookAllowPrivate: allowPrivate,
            webhookHostLookup: .system
        )
    }

    static func worker(
        _ store: any OrderStore,
        allowPrivate: Bool = true,
        retryDelays: [TimeInterval] = [1, 2, 4, 8, 16, 32, 64],
        onOutcomes: @escaping @Sendable ([WebhookOutcome]) -> Void = { _ in }
    ) -> WebhookWorker {
        var logger = Logger(label: "webhooks")
        logger.logLevel = .critical
        return WebhookWorker(
            store: store,
            transport: CurlWebhookTransport(concurrency: 4, allowPrivate: allowPrivate, timeout: 5),
            logger: logger,
            retryDelays: retryDelays,
            idleWait: .milliseconds(200),
            onOutcomes: onOutcomes
        )
    }

    static func create(_ service: OrderService, id: String) async throws -> StoredOrder {
        var body = SampleOrder.json().objectValue!
        for key in ["createdAt", "updatedAt", "merchant"] { body.removeValue(forKey: key) }
        body["orderIdentifier"] = .string(id)
        return try await service.create(OrderInput(fields: body)).order
    }

    static func ship(_ service: OrderService, _ order: StoredOrder, _ tracking: String) async throws {
        let patch = OrderPatch(changes: ["status": .string("open"), "orderNumber": .string(tracking)])
        _ = try await service.patch(type: order.orderTypeIdentifier, id: order.orderIdentifier, patch)
    }

    /// Waits until `endpoint` has `count` deliveries, every one of them delivered; answers whether that came.
    static func allDelivered(_ service: OrderService, _ endpoint: String, count: Int) async throws -> Bool {
        try await eventually {
            let records = try await WebhookService(orders: service).deliveries(endpoint, page: PageRequest(limit: count + 1), for: .singleShop)
                .records
            return records.count == count && records.allSatisfy { $0.status == .delivered }
        }
    }

    /// Runs `worker` while `body` runs.
    static func running<Result>(_ worker: WebhookWorker, _ body: () async throws -> Result) async throws -> Result {
        let task = Task { await worker.run() }
        do {
            let result = try await body()
            task.cancel()
            await task.value
            await worker.shutdown()
            return result
        } catch {
            task.cancel()
            await task.value
            await worker.shutdown()
            throw error
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func everyEventIsSignedAndArrivesOnce(engine: StoreEngine) async throws {
        let receiver = try await WebhookReceiver()
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            let endpoint = try await WebhookService(orders: service).create(url: receiver.url, events: nil, for: .singleShop)
            #expect(endpoint.events == WebhookEvent.allCases)
            let order = try await Self.create(service, id: "W-1")
            let (id, token) = (order.orderIdentifier, order.authenticationToken)
            // The first device puts the order in a Wallet; the second changes nothing.
            _ = try await service.register(device: "d1", type: type, id: id, token: token, pushToken: "aa")
            _ = try await service.register(device: "d2", type: type, id: id, token: token, pushToken: "bb")
            try await Self.ship(service, order, "SHIP-1")
            // A push that fails for good says so, with APNs' reason.
            let claim = OutboxClaim(owner: "test", lease: 60)
            let pushes = try await store.claimDuePushes(types: [type], limit: 10, claim: claim)
            #expect(pushes.count == 2)
            try await store.finishPushes(
                [
                    (pushes[0], .failed(reason: "BadDeviceToken", notice: .pushFailed(attempts: pushes[0].attempts, reason: "BadDeviceToken"))),
                    (pushes[1], .delivered),
                ],
                owner: "test"
            )
            // The last device leaves: the order is in no Wallet any more.
            try await service.unregister(device: "d1", type: type, id: id, token: token)
            try await service.unregister(device: "d2", type: type, id: id, token: token)
            // A link's download.
            let link = try await LinkService(orders: service).create(type: type, id: id, for: .singleShop, LinkRequest())
            _ = try await LinkService(orders: service).download(reference: String(link.url.split(separator: "/").last!), client: "198.51.100.7")

            try await Self.running(Self.worker(store)) {
                let received = try await receiver.waitForDeliveries(6, seconds: 60)
                #expect(received)
                // Every delivery recorded as delivered: nothing is left that could be sent again.
                #expect(try await Self.allDelivered(service, endpoint.id, count: 6))
            }
            let verified = try await receiver.verified(secrets: [endpoint.secret])
            #expect(verified.count == 6, "each event once: \(verified.map(\.type))")
            #expect(Set(verified.map(\.id)).count == verified.count)
            #expect(
                verified.map(\.type).sorted()
                    == [
                        "link.downloaded", "order.added_to_wallet", "order.created", "order.removed_from_wallet", "order.updated",
                        "push.failed",
                    ]
            )
            for webhook in verified {
                #expect(webhook.data["orderTypeIdentifier"] == type && webhook.data["orderIdentifier"] == id, "\(webhook.data)")
                #expect(webhook.signatures == 1)
            }
            let byType = Dictionary(uniqueKeysWithValues: verified.map { ($0.type, $0.data) })
            #expect(byType["order.updated"]?["version"] == "2")
            #expect(byType["order.created"]?["version"] == "1" && byType["order.created"]?["status"] == "open")
            #expect(byType["push.failed"]?["reason"] == "BadDeviceToken")
            #expect(byType["link.downloaded"]?["linkId"] == link.id)
            // The merchant sees the same: each delivered, at the first attempt.
            let deliveries = try await WebhookService(orders: service).deliveries(endpoint.id, page: PageRequest(limit: 50), for: .singleShop)
            #expect(deliveries.records.count == 6)
            #expect(deliveries.records.allSatisfy { $0.status == .delivered && $0.attempts == 1 && $0.lastStatusCode == 200 })
            #expect(Set(deliveries.records.map(\.messageID)) == Set(verified.map(\.id)))
        }
    }

    @Test func aReceiverThatFailsForAMinuteGetsTheEventsAfterwards() async throws {
        let receiver = try await WebhookReceiver()
        try await receiver.answer(500)
        try await TestStore.with(.sqlite) { store in
            let service = try Self.service(store)
            let endpoint = try await WebhookService(orders: service).create(url: receiver.url, events: ["order.updated"], for: .singleShop)
            let order = try await Self.create(service, id: "W-2")
            for step in 1...3 { try await Self.ship(service, order, "SHIP-\(step)") }
            // Retries come every few seconds here, so the test need not wait for the real schedule's next one.
            try await Self.running(Self.worker(store, retryDelays: [1, 2, 4] + Array(repeating: 8, count: 20))) {
                #expect(await eventually(timeout: .seconds(120)) { receiver.answered(500) >= 3 }, "tried while it failed")
                #expect(receiver.answered(200) == 0)
                try await receiver.answer(200)
                #expect(try await receiver.waitForDeliveries(3, seconds: 90))
            }
            let verified = try await receiver.verified(secrets: [endpoint.secret])
            #expect(Set(verified.map(\.id)).count == 3 && verified.count == 3)
            #expect(verified.compactMap { $0.data["version"] }.sorted() == ["2", "3", "4"])
            let deliveries = try await WebhookService(orders: service).deliveries(endpoint.id, page: PageRequest(limit: 10), for: .singleShop)
            #expect(deliveries.records.allSatisfy { $0.status == .delivered && $0.attempts > 1 })
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anEndpointThatKeepsFailingIsDisabledAndEnablingItSendsWhatFailed(engine: StoreEngine) async throws {
        let receiver = try await WebhookReceiver()
        try await receiver.answer(503)
        try await TestStore.with(engine) { store in
            let service = try Self.service(store)
            let endpoint = try await WebhookService(orders: service).create(url: receiver.url, events: ["order.updated"], for: .singleShop)
            let order = try await Self.create(service, id: "W-3")
            try await Self.ship(service, order, "SHIP-1")
            try await Self.running(Self.worker(store, retryDelays: [0.2, 0.2])) {
                _ = try await eventually { try await WebhookService(orders: service).endpoint(endpoint.id, for: .singleShop).disabledAt != nil }
            }
            let disabled = try await WebhookService(orders: service).endpoint(endpoint.id, for: .singleShop)
            #expect(disabled.disabledAt != nil)
            #expect(disabled.disabledReason?.contains("3 attempts") == true, "\(disabled.disabledReason ?? "")")
            #expect(disabled.disabledReason?.contains("503") == true)
            #expect(receiver.answered(503) == 3)
            // While it is disabled, events are not queued for it; redelivering is refused.
            try await Self.ship(service, order, "SHIP-2")
            var deliveries = try await WebhookService(orders: service).deliveries(endpoint.id, page: PageRequest(limit: 10), for: .singleShop)
            #expect(deliveries.records.count == 1 && deliveries.records[0].status == .failed)
            await #expect(throws: OrderServiceError.webhookDisabled) {
                try await WebhookService(orders: service).redeliver(deliveries.records[0].id, of: endpoint.id, for: .singleShop)
            }
            // Enabled again, it gets what failed.
            try await receiver.answer(200)
            let enabled = try await WebhookService(orders: service).change(endpoint.id, url: nil, events: nil, enabled: true, for: .singleShop)
            #expect(enabled.disabledAt == nil && enabled.disabledReason == nil)
            let sent = try await Self.running(Self.worker(store)) { try await receiver.waitForDeliveries(1, seconds: 20) }
            #expect(sent)
            deliveries = try await WebhookService(orders: service).deliveries(endpoint.id, page: PageRequest(limit: 10), for: .singleShop)
            #expect(deliveries.records.map(\.status) == [.delivered])
            // A redelivery sends it again with the same message id.
            let again = try await WebhookService(orders: service).redeliver(deliveries.records[0].id, of: endpoint.id, for: .singleShop)
            #expect(again.status == .pending && again.messageID == deliveries.records[0].messageID)
            let sentAgain = try await Self.running(Self.worker(store)) { try await receiver.waitForDeliveries(2, seconds: 20) }
            #expect(sentAgain)
            let ids = try await receiver.verified(secrets: [endpoint.secret]).map(\.id)
            #expect(ids.count == 2 && Set(ids).count == 1)
        }
    }

    @Test func aRotatedSecretSignsBesideTheNewOneForADay() async throws {
        let receiver = try await WebhookReceiver()
        try await TestStore.with(.sqlite) { store in
            let service = try Self.service(store)
            let old = try await WebhookService(orders: service).create(url: receiver.url, events: ["order.updated"], for: .singleShop)
            let new = try await WebhookService(orders: service).rotateSecret(old.id, for: .singleShop)
            #expect(new.secret != old.secret && new.previousSecret == old.secret)
            let order = try await Self.create(service, id: "W-6")
            try await Self.ship(service, order, "SHIP-1")
            let sent = try await Self.running(Self.worker(store)) { try await receiver.waitForDeliveries(1, seconds: 20) }
            #expect(sent)
            // A receiver that still holds the old secret, and one that has the new one, both accept it.
            for secret in [old.secret, new.secret] {
                let verified = try await receiver.verified(secrets: [secret])
                #expect(verified.count == 1 && verified.first?.signatures == 2)
            }
            await #expect(throws: (any Error).self) { try await receiver.verified(secrets: [WebhookSignature.newSecret()]) }
        }
    }

    @Test func twoInstancesOnOnePostgresDeliverEachEventOnce() async throws {
        let receiver = try await WebhookReceiver()
        let folder = try TemporaryDirectory("two-instances")
        let (first, location) = try await TestStore.make(.postgres, in: folder)
        let second = try await TestStore.reopen(.postgres, at: location)
        let service = try Self.service(first)
        let endpoint = try await WebhookService(orders: service).create(url: receiver.url, events: ["order.updated"], for: .singleShop)
        let events = 120
        let counts = Counts()
        let workers = [
            Self.worker(first) { counts.add(0, $0.count) },
            Self.worker(second) { counts.add(1, $0.count) },
        ]
        let tasks = workers.map { worker in Task { await worker.run() } }
        // Updates land while both workers claim.
        let order = try await Self.create(service, id: "W-4")
        for step in 1...events { try await Self.ship(service, order, "SHIP-\(step)") }
        #expect(try await receiver.waitForDeliveries(events, seconds: 120))
        // Every delivery recorded as delivered: nothing is left that either worker could send again.
        #expect(try await Self.allDelivered(service, endpoint.id, count: events))
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        let received = receiver.received()
        #expect(received.count == events, "each event sent once: \(received.count) sends of \(events) events")
        #expect(Set(received).count == events)
        let verified = try await receiver.verified(secrets: [endpoint.secret])
        #expect(Set(verified.compactMap { $0.data["version"] }).count == events)
        print("deliveries by instance: \(counts.values)")
        await second.close()
        await first.close()
    }

    @Test func aPrivateAddressIsRefusedUnlessAllowed() async throws {
        let receiver = try await WebhookReceiver()
        try await TestStore.with(.sqlite) { store in
            let strict = try Self.service(store, allowPrivate: false)
            await #expect(throws: OrderServiceError.self) {
                try await WebhookService(orders: strict).create(url: receiver.url, events: nil, for: .singleShop)
            }
            do {
                _ = try await WebhookService(orders: strict).create(url: "https://127.0.0.1:\(9)/hook", events: nil, for: .singleShop)
                Issue.record("a loopback URL was accepted")
            } catch OrderServiceError.invalidOrder(_, let problems) {
                #expect(problems.first?.path == "url" && problems.first?.message.contains("not a public address") == true)
            }
            // A name that resolves to a public address when named, and to loopback when connected to, is refused at
            // the connection: the transport checks every address it connects to.
            let lenient = try Self.service(store, allowPrivate: true)
            let endpoint = try await WebhookService(orders: lenient).create(url: receiver.url, events: ["order.updated"], for: .singleShop)
            let order = try await Self.create(lenient, id: "W-5")
            try await Self.ship(lenient, order, "SHIP-1")
            try await Self.running(Self.worker(store, allowPrivate: false)) {
                _ = try await eventually {
                    try await WebhookService(orders: lenient).deliveries(endpoint.id, page: PageRequest(limit: 5), for: .singleShop).records.first?
                        .lastError != nil
                }
            }
            let page = try await WebhookService(orders: lenient).deliveries(endpoint.id, page: PageRequest(limit: 5), for: .singleShop)
            #expect(page.records.first?.lastError?.contains("refused to connect to 127.0.0.1") == true, "\(page.records)")
            #expect(page.records.first?.status == .pending)
            #expect(receiver.received().isEmpty)
        }
    }
}

/// Deliveries each worker made.
final class Counts: Sendable {
    private let storage = Mutex([0, 0])
    func add(_ index: Int, _ count: Int) { storage.withLock { $0[index] += count } }
    var values: [Int] { storage.withLock { $0 } }
}
