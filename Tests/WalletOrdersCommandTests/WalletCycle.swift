import Foundation
import Synchronization
import Testing
import WalletOrdersAPNS
import WalletOrdersAPNSServer
import WalletOrdersApplication
import WalletOrdersCrypto
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersPush
import WalletOrdersTesting

/// `wallet-orders serve` configured as a deployment is (an order type from `keys dev`, a merchant key, a public
/// URL on its real port) and pointed at a local APNs: in this process, or at a port a `device watch` will listen on.
final class WalletCycle {
    let folder: TemporaryDirectory
    let server: BackgroundCommand
    let base: String
    let merchant: Merchant
    let keys: URL
    let orderType: String
    /// The local APNs in this process, when the cycle runs one.
    let apns: LocalAPNS?
    let listener: LocalAPNS.Listener?
    let apnsURL: String
    /// Where the server keeps its data: a file path or a PostgreSQL URL.
    let database: String
    private let environment: [String: String]

    /// Starts the server on `engine`; with `apnsPort`, its pushes go to that port (where a `device watch` will
    /// listen), otherwise to a local APNs started here.
    static func start(_ engine: StoreEngine, apnsPort: Int? = nil) async throws -> WalletCycle {
        let folder = try TemporaryDirectory("cycle")
        var environment = try await makeDevelopmentKeys(in: folder)
        let keys = URL(fileURLWithPath: folder.path("keys"))
        // Kept in the keys folder, as `device watch` keeps it: the CA file exists before the server checks it.
        let identity = try LocalAPNS.TLSIdentity(folder: keys)
        var apns: LocalAPNS?
        var listener: LocalAPNS.Listener?
        let port: Int
        if let apnsPort {
            port = apnsPort
        } else {
            let publicKey = try PublicKey(pem: Data(contentsOf: keys.appendingPathComponent("apns-public.pem")))
            let local = LocalAPNS(
                publicKeys: [try #require(environment["WALLET_ORDERS_APNS_KEY_ID"]): publicKey],
                teamID: environment["WALLET_ORDERS_APNS_TEAM_ID"],
                topics: [try #require(environment["WALLET_ORDERS_ORDER_TYPE"])]
            )
            let listening = try await local.listen(tls: identity.serverConfiguration())
            (apns, listener, port) = (local, listening, listening.port)
        }
        let serverPort = try freePort()
        let apnsURL = "https://127.0.0.1:\(port)"
        environment["WALLET_ORDERS_MERCHANT_KEY"] = "merchant-key-for-the-wallet-cycle"
        environment["WALLET_ORDERS_PUBLIC_URL"] = "http://127.0.0.1:\(serverPort)"
        environment["WALLET_ORDERS_TEMPLATE"] = SampleOrder.templateFolder.path
        environment["WALLET_ORDERS_APNS_ENVIRONMENT"] = apnsURL
        environment["WALLET_ORDERS_APNS_CA"] = LocalAPNS.TLSIdentity.certificateAuthorityFile(in: keys).path
        let database = engine == .sqlite ? folder.path("data/orders.sqlite") : try await TestStore.postgresDatabase()
        let server = try BackgroundCommand(
            ["serve", "--port", "\(serverPort)", "--database", database],
            in: folder,
            name: "serve",
            directory: DevelopmentServer.repository,
            environment: environment
        )
        let banner = try await server.waitFor("serving on", seconds: 60)
        #expect(banner.contains("serving on http://127.0.0.1:\(serverPort)"), "\(banner)")
        return WalletCycle(
            folder: folder,
            server: server,
            base: "http://127.0.0.1:\(serverPort)",
            keys: keys,
            orderType: try #require(environment["WALLET_ORDERS_ORDER_TYPE"]),
            apns: apns,
            listener: listener,
            apnsURL: apnsURL,
            database: database,
            environment: environment
        )
    }

    private init(
        folder: TemporaryDirectory,
        server: BackgroundCommand,
        base: String,
        keys: URL,
        orderType: String,
        apns: LocalAPNS?,
        listener: LocalAPNS.Listener?,
        apnsURL: String,
        database: String,
        environment: [String: String]
    ) {
        self.folder = folder
        self.server = server
        self.base = base
        merchant = Merchant(base: base, key: environment["WALLET_ORDERS_MERCHANT_KEY"] ?? "")
        self.keys = keys
        self.orderType = orderType
        self.apns = apns
        self.listener = listener
        self.apnsURL = apnsURL
        self.database = database
        self.environment = environment
    }

    /// The development root the packages chain to.
    var rootPEM: Data { get throws { try Data(contentsOf: keys.appendingPathComponent("root-ca.pem")) } }

    /// Creates Examples/order.json through the merchant API; answers the merchant API's whole answer.
    func createOrder() async throws -> Data { try await merchant.createOrder() }

    /// PATCHes the order through the merchant API; answers how many pushes were queued.
    func patch(_ details: OrderDetails, _ json: String) async throws -> Int? { try await merchant.patch(details, json) }

    /// Sends one push for `token` to the local APNs as a provider would (libcurl, HTTP/2, the development APNs
    /// key), without any change to an order; answers APNs' status.
    func push(to token: String) async throws -> Int {
        let transport = CurlPushTransport(
            endpoint: APNSEndpoint(.custom(url: apnsURL), caFile: environment["WALLET_ORDERS_APNS_CA"])
        )
        let request = Result { () throws -> APNSRequest in
            let key = try PrivateKey(pem: Data(contentsOf: URL(fileURLWithPath: try #require(environment["WALLET_ORDERS_APNS_KEY"]))))
            let provider = try ProviderToken(
                key: key,
                keyID: try #require(environment["WALLET_ORDERS_APNS_KEY_ID"]),
                teamID: try #require(environment["WALLET_ORDERS_APNS_TEAM_ID"])
            )
            return APNSRequest(topic: orderType, deviceToken: token, providerToken: try provider.current())
        }
        let responses = await transport.send([try request.get()])
        await transport.shutdown()
        return responses.first?.status ?? 0
    }

    /// Runs `wallet-orders` with `arguments` against the server's database, as an operator beside it would; answers
    /// what it printed, failing the test when it fails.
    func command(_ arguments: [String]) async throws -> String {
        var environment = environment
        environment["WALLET_ORDERS_DATABASE"] = database
        return try await MerchantCommandTests.run(arguments, environment: environment)
    }

    /// Stops the local APNs and the server (SIGTERM, then SIGKILL if it lingers), without waiting: for `defer`.
    func stop() {
        listener?.close()
        server.stop()
    }
}

/// The merchant API of a running server, driven with curl.
struct Merchant: Sendable {
    let base: String
    let key: String

    /// curl with `-s`; answers what it printed.
    func curl(_ arguments: [String]) async throws -> String {
        try await Command.run("curl", ["-s"] + arguments, directory: DevelopmentServer.repository.path).output
    }

    /// Creates Examples/order.json; answers the merchant API's whole answer.
    func createOrder() async throws -> Data {
        let output = try await curl([
            "-X", "POST", "\(base)/api/v1/orders", "-H", "Authorization: Bearer \(key)",
            "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ])
        return Data(output.utf8)
    }

    /// PATCHes the order; answers how many pushes were queued.
    func patch(_ details: OrderDetails, _ json: String) async throws -> Int? {
        let output = try await curl([
            "-X", "PATCH", "\(base)/api/v1/orders/\(details.orderTypeIdentifier)/\(details.orderIdentifier)",
            "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/merge-patch+json", "-d", json,
        ])
        return try JSONValue.parse(Data(output.utf8))["pushesQueued"]?.intValue
    }

    /// The ids and statuses of the pushes the outbox holds for the order, newest first.
    func pushes(_ details: OrderDetails) async throws -> [String] {
        let output = try await curl(["\(base)/api/v1/pushes?order=\(details.orderIdentifier)", "-H", "Authorization: Bearer \(key)"])
        return try JSONValue.parse(Data(output.utf8))["pushes"]?.arrayValue?.map {
            "\($0["id"]?.intValue ?? -1) \($0["status"]?.stringValue ?? "?")"
        } ?? []
    }

    /// The device logs the server stored.
    func logs() async throws -> [String] {
        let output = try await curl(["\(base)/api/v1/logs", "-H", "Authorization: Bearer \(key)"])
        return try JSONValue.parse(Data(output.utf8))["logs"]?.arrayValue?.compactMap { $0["message"]?.stringValue } ?? []
    }
}

/// A device's HTTP client that waits longer than Wallet would: the suite shares two cores with other work.
func patientClient() throws -> DeviceHTTPClient { try DeviceHTTPClient(timeout: .seconds(30)) }

/// Runs `trigger`, then collects the device's steps until one satisfies `last` (or 60 seconds pass).
func steps(
    of device: SimulatedDevice,
    until last: @escaping @Sendable (DeviceEvent) -> Bool,
    after trigger: () async throws -> Void
) async throws -> [DeviceEvent] {
    let events = device.events()
    try await trigger()
    let collected = Collected()
    let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await event in events {
                collected.append(event)
                if last(event) { return true }
            }
            return false
        }
        group.addTask {
            try await Task.sleep(for: .seconds(60))
            return false
        }
        let first = try await group.next() ?? false
        group.cancelAll()
        return first
    }
    let result = collected.events
    #expect(finished, "the device's steps stopped short: \(result.map(\.description))")
    return result
}

/// Events one task collects and another reads.
final class Collected: Sendable {
    private let state = Mutex<[DeviceEvent]>([])

    var events: [DeviceEvent] { state.withLock { $0 } }

    func append(_ event: DeviceEvent) { state.withLock { $0.append(event) } }
}
