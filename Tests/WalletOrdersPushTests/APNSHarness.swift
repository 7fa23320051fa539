import Foundation
import Logging
import WalletOrdersAPNS
import WalletOrdersAPNSServer
import WalletOrdersApplication
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersPush
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// The local APNs on a real HTTP/2 TLS port, the real libcurl transport, and the service's store and order logic.
final class APNSHarness: Sendable {
    let apns: LocalAPNS
    let folder: TemporaryDirectory
    let service: OrderService
    let store: any OrderStore
    let route: PushRoute
    let transport: CurlPushTransport
    let port: Int
    let listener: LocalAPNS.Listener

    static let teamID = DevelopmentKeys.team

    init(
        _ engine: StoreEngine = .sqlite,
        apnsNow: @escaping @Sendable () -> Date = Date.init,
        connections: Int = 1,
        streams: Int = 100,
        recordsPushes: Bool = true
    ) async throws {
        let keys = DevelopmentKeys.shared
        folder = try TemporaryDirectory("apns")
        let publicKey = try PublicKey(pem: Data(keys.chain.apnsKey.publicKeyPEM().utf8))
        apns = LocalAPNS(
            publicKeys: [keys.chain.apnsKeyID: publicKey],
            teamID: Self.teamID,
            topics: [DevelopmentKeys.orderType],
            now: apnsNow,
            recordsPushes: recordsPushes
        )
        let identity = try LocalAPNS.TLSIdentity()
        let caPath = try folder.write("apns-ca.pem", Data(identity.certificateAuthority.pem.utf8))
        listener = try await apns.listen(tls: identity.serverConfiguration())
        port = listener.port

        transport = CurlPushTransport(
            endpoint: APNSEndpoint(.custom(url: "https://127.0.0.1:\(port)"), caFile: caPath),
            connections: connections,
            streamsPerConnection: streams
        )
        route = PushRoute(
            transport: transport,
            providerToken: try ProviderToken(key: keys.chain.apnsKey, keyID: keys.chain.apnsKeyID, teamID: Self.teamID)
        )

        let type = OrderType(
            identifier: DevelopmentKeys.orderType,
            builder: PackageBuilder(identity: keys.identity),
            template: try OrderTemplate(directory: SampleOrder.templateFolder)
        )
        store = try await TestStore.make(engine, in: folder).store
        service = OrderService(store: StoreCapabilities(store), orderTypes: [type], webServiceURL: "https://orders.example.com")
    }

    func worker(firstRetryDelay: TimeInterval = 0) -> PushWorker {
        var logger = Logger(label: "push")
        logger.logLevel = .critical
        return PushWorker(
            store: store,
            routes: [DevelopmentKeys.orderType: route],
            logger: logger,
            idleWait: .milliseconds(100),
            firstRetryDelay: firstRetryDelay
        )
    }

    /// Creates the sample order and registers `devices` (device identifier → push token).
    func order(devices: [String: String]) async throws -> StoredOrder {
        var body = SampleOrder.json().objectValue!
        for key in ["createdAt", "updatedAt", "merchant", "orderIdentifier"] { body.removeValue(forKey: key) }
        let order = try await service.create(OrderInput(fields: body)).order
        for (device, token) in devices {
            _ = try await store.register(
                device: device,
                type: order.orderTypeIdentifier,
                id: order.orderIdentifier,
                pushToken: token,
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
        }
        return order
    }

    func update(_ order: StoredOrder, status: String) async throws -> Int {
        try await service.patch(
            type: order.orderTypeIdentifier,
            id: order.orderIdentifier,
            OrderPatch(changes: ["status": .string(status)])
        ).pushesQueued
    }

    /// Every push in the outbox, newest first.
    func pushes() async throws -> [PushRecord] {
        try await store.pushes(PushFilter(), page: PageRequest(limit: 100)).records
    }

    func stop() async {
        await transport.shutdown()
        listener.close()
        await store.close()
    }
}
