import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import WalletOrdersApplication
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// A clock the test moves by hand, to make two updates land in one second or the clock step back.
final class ManualClock: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_795_342_530)) { current = start }

    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// The real service on a real port over a fresh store (a temporary SQLite file or a new PostgreSQL database),
/// with the sample template and development keys.
final class ServiceHarness: Sendable {
    static let merchantKey = "merchant-key-for-tests-0123456789"
    /// The service's public URL: a proxy maps it to the server's root.
    static let webServiceURL = "https://orders.example.com/wallet"
    let engine: StoreEngine
    let folder: TemporaryDirectory
    let clock = ManualClock()

    /// Where the first run made its store, so that later runs (a restart) find the same data.
    private let location = Mutex<String?>(nil)

    init(_ engine: StoreEngine = .sqlite) throws {
        self.engine = engine
        folder = try TemporaryDirectory("service")
    }

    private func openStore() async throws -> any OrderStore {
        // The store reads the test's clock, and so does the service, which reads the store's.
        let clock = StoreClock(wall: { [clock] in clock.now })
        if let location = location.withLock({ $0 }) { return try await TestStore.reopen(engine, at: location, clock: clock) }
        let (store, made) = try await TestStore.make(engine, in: folder, clock: clock)
        location.withLock { $0 = made }
        return store
    }

    static func orderType() throws -> OrderType {
        OrderType(
            identifier: DevelopmentKeys.orderType,
            builder: PackageBuilder(identity: DevelopmentKeys.shared.identity, allowsHTTPWebService: false),
            template: try OrderTemplate(directory: SampleOrder.templateFolder)
        )
    }

    /// Runs `body` against the service listening on a free loopback port; the store is closed afterwards.
    func run(
        adminKey: String? = nil,
        operatorKey: String? = nil,
        limits: ClientLimits = ClientLimits(),
        logLimits: DeviceLogLimits = DeviceLogLimits(),
        hosts: HostPolicy = .any,
        _ body: @escaping @Sendable (Client) async throws -> Void
    ) async throws {
        let store = try await openStore()
        let metrics = ServiceMetrics()
        let service = OrderService(
            store: StoreCapabilities(store),
            orderTypes: [try Self.orderType()],
            webServiceURL: Self.webServiceURL,
            counters: metrics.serviceCounters,
            logLimits: logLimits,
            merchantKeys: [Self.merchantKey]
        )
        var configuration = ServiceConfiguration()
        configuration.clientLimits = limits
        configuration.port = 0
        configuration.merchantKeys = [Self.merchantKey]
        configuration.adminKey = adminKey
        configuration.operatorKey = operatorKey
        configuration.hosts = hosts
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        let app = ServiceApplication.make(service: service, metrics: metrics, configuration: configuration, logger: logger)
        do {
            try await app.test(.live) { client in try await body(Client(client: client, service: service, store: store)) }
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    /// A thin layer over the test client that speaks JSON.
    struct Client: Sendable {
        let client: any TestClientProtocol
        let service: OrderService
        /// The store behind the service, for tests to check what was written.
        let store: any OrderStore

        @discardableResult
        func request(
            _ method: HTTPRequest.Method,
            _ uri: String,
            headers: HTTPFields = [:],
            body: Data? = nil
        ) async throws -> TestResponse {
            try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        }

        func merchant(
            _ method: HTTPRequest.Method,
            _ uri: String,
            json: JSONValue? = nil,
            contentType: String = "application/json",
            key: String = ServiceHarness.merchantKey
        ) async throws -> TestResponse {
            var headers: HTTPFields = [.authorization: "Bearer \(key)"]
            if json != nil { headers[.contentType] = contentType }
            return try await request(method, uri, headers: headers, body: json?.serialized())
        }

        /// Creates the sample order through the merchant API and returns its details.
        func createOrder(
            id: String = "A-1001",
            key: String = ServiceHarness.merchantKey,
            change: (inout [String: JSONValue]) -> Void = { _ in }
        ) async throws -> OrderDetails {
            var fields = SampleOrder.json(orderIdentifier: id).objectValue!
            for key in ["updatedAt", "createdAt", "merchant"] { fields.removeValue(forKey: key) }
            change(&fields)
            let response = try await merchant(.post, "/api/v1/orders", json: .object(fields), key: key)
            guard response.status == .created else {
                throw HarnessError("creating an order answered \(response.status): \(String(buffer: response.body))")
            }
            let details = try JSONValue.parse(Data(buffer: response.body))["orderDetails"]!
            return OrderDetails(
                type: details["orderTypeIdentifier"]!.stringValue!,
                id: details["orderIdentifier"]!.stringValue!,
                token: details["authenticationToken"]!.stringValue!
            )
        }

        func register(_ order: OrderDetails, device: String, pushToken: String = "aabbccdd", token: String? = nil) async throws -> TestResponse {
            try await request(
                .post,
                "/v1/devices/\(device)/registrations/\(order.type)/\(order.id)",
                headers: [.authorization: "AppleOrder \(token ?? order.token)"],
                body: JSONValue.object(["pushToken": .string(pushToken)]).serialized()
            )
        }

        func changed(device: String, since tag: String? = nil) async throws -> TestResponse {
            let query = tag.map { "?ordersModifiedSince=\($0)" } ?? ""
            return try await request(.get, "/v1/devices/\(device)/registrations/\(DevelopmentKeys.orderType)\(query)")
        }

        func fetch(_ order: OrderDetails, headers: HTTPFields = [:]) async throws -> TestResponse {
            var headers = headers
            headers[.authorization] = "AppleOrder \(order.token)"
            return try await request(.get, "/v1/orders/\(order.type)/\(order.id)", headers: headers)
        }

        /// Adds a merchant with a key through the registry, as an operator would; answers the key.
        func addMerchant(_ slug: String, limits: MerchantLimits = MerchantLimits()) async throws -> String {
            let registry = MerchantRegistry(service: service)
            _ = try await registry.add(slug: slug, displayName: "Shop \(slug)", limits: limits)
            let key = try await registry.createKey(for: slug).text
            try await service.merchants.reload()
            return key
        }

        /// Makes a key for the merchant `slug` (added through the operator's API), as an operator would; answers it.
        func addKey(_ slug: String) async throws -> String {
            let key = try await MerchantRegistry(service: service).createKey(for: slug).text
            try await service.merchants.reload()
            return key
        }

        func patch(
            _ order: OrderDetails,
            _ patch: JSONValue,
            key: String = ServiceHarness.merchantKey
        ) async throws
            -> TestResponse
        {
            try await merchant(
                .patch,
                "/api/v1/orders/\(order.type)/\(order.id)",
                json: patch,
                contentType: "application/merge-patch+json",
                key: key
            )
        }
    }

    struct OrderDetails: Sendable {
        let type: String
        let id: String
        let token: String
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    /// The body as JSON.
    var json: JSONValue { (try? JSONValue.parse(Data(buffer: body))) ?? .null }
}
