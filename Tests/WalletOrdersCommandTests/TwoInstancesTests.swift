import Foundation
import Logging
import Synchronization
import Testing
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two `wallet-orders serve` processes on one PostgreSQL database and one local APNs, as a production deployment
/// with two replicas runs: updates and registrations go to both, one is killed with SIGKILL in the middle of
/// the load and started again. Nothing acknowledged is lost, every device hears of its order's last update, no
/// device hears of an update more than once beyond the retries the kill causes, and nothing stays `sending`.
@Suite(.timeLimit(.minutes(10))) struct TwoInstancesTests {
    static let merchantKey = "merchant-key-for-two-instances-0123"

    @Test func aKilledInstanceLosesNothingAndItsPushesAreSentByTheOther() async throws {
        let folder = try TemporaryDirectory("two-instances")
        let keys = try await makeDevelopmentKeys(in: folder)
        let database = try await TestStore.emptyPostgresDatabase()

        // The local APNs, in this process, noting when each push reached it.
        let deployment = try await LocalDeployment.start(in: folder, keys: keys, database: database)
        defer { deployment.listener.close() }
        let (apns, pushes) = (deployment.apns, deployment.pushes)
        let environment = deployment.environment
        let (first, firstCommand) = try await Instance.start(in: folder, name: "first", environment: environment)
        let (second, secondCommand) = try await Instance.start(in: folder, name: "second", environment: environment)
        var commands = [firstCommand, secondCommand]
        defer { for command in commands { command.stop() } }

        // Orders, and devices registered for them through either instance.
        var created: [OrderRef] = []
        for index in 0..<12 { created.append(try await (index.isMultiple(of: 2) ? first : second).createOrder()) }
        let orders = created
        let ledger = Ledger(second: second)
        for (index, order) in orders.enumerated() {
            for device in 0..<2 {
                let instance = (index + device).isMultiple(of: 2) ? first : second
                let token = String(format: "%08x%02x", index, device)
                // Slow answers for half the devices, so that pushes are in flight (claimed) when the kill comes.
                if device == 0 { apns.set(.stall(seconds: 0.5), for: token) }
                if try await instance.register(order, device: "device-\(index)-\(device)", pushToken: token) {
                    ledger.registered(order, token: token)
                }
            }
        }

        // Four clients update orders through both instances as fast as they can; a few more devices register.
        // A third of the way through the second instance is killed (SIGKILL: no goodbye, its claims held), and
        // two thirds through it is started again.
        let perClient = 90
        try await withThrowingTaskGroup(of: BackgroundCommand?.self) { group in
            for client in 0..<4 {
                group.addTask {
                    for round in 0..<perClient {
                        let order = orders[(client * 7 + round * 5) % orders.count]
                        let target = round.isMultiple(of: 2) ? ledger.second ?? first : first
                        let started = Date()
                        ledger.attempted()
                        if let version = try await target.patch(order, ["orderNumber": .string("c\(client)-r\(round)")]) {
                            ledger.updated(order, version: version, startedAt: started)
                        }
                        if round.isMultiple(of: 20) {
                            let token = String(format: "%08x%02x", 1_000 + round, client)
                            if try await (ledger.second ?? first).register(order, device: "late-\(client)-\(round)", pushToken: token) {
                                ledger.registered(order, token: token)
                            }
                        }
                    }
                    return nil
                }
            }
            group.addTask {
                while ledger.attempts < 4 * perClient / 3 { try await Task.sleep(for: .milliseconds(20)) }
                ledger.second = nil
                kill(second.pid, SIGKILL)
                while ledger.attempts < 4 * perClient * 2 / 3 { try await Task.sleep(for: .milliseconds(20)) }
                let (again, command) = try await Instance.start(in: folder, name: "second-again", environment: environment)
                ledger.second = again
                return command
            }
            for try await command in group { if let command { commands.append(command) } }
        }
        #expect(ledger.acknowledged > 250, "the load went through: \(ledger.acknowledged) acknowledged updates")
        #expect(try await first.health() == 200)
        #expect(try await ledger.second?.health() == 200, "the restarted instance serves")

        // The killed instance's claims run out (a 30-second lease) and a live instance sends those pushes.
        var outbox: [String: Int] = [:]
        for _ in 0..<120 {
            outbox = try await Instance.outbox(in: try PostgresCluster.shared, database: database)
            if (outbox["pending"] ?? 0) + (outbox["sending"] ?? 0) == 0 { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(outbox["pending"] == 0 && outbox["sending"] == 0, "nothing left waiting or sending: \(outbox)")
        // Whether the killed instance held claims at the moment of the kill depends on where its rounds were (a
        // loaded machine runs fewer at once): when it did, a live one took them back; either way nothing is left,
        // which the outbox above shows.
        let survivors = commands.filter { $0 !== secondCommand }.map(\.output).joined()
        if !survivors.contains("took back pushes whose instance stopped renewing its claim") {
            print("TwoInstancesTests: the killed instance held no claims when it was killed")
        }

        for order in orders {
            // Every acknowledged update is stored: distinct versions, none beyond the stored one.
            let stored = try await first.order(order)
            let versions = ledger.versions(of: order)
            #expect(Set(versions).count == versions.count, "two acknowledgements of one version of \(order.id)")
            #expect(versions.allSatisfy { $0 <= stored.version }, "an acknowledged version of \(order.id) is missing")
            // Every acknowledged registration is stored.
            let registered = Set(try await first.registrations(order))
            #expect(ledger.tokens(of: order).isSubset(of: registered), "a registration of \(order.id) is missing")
            for token in ledger.tokens(of: order) {
                let received = pushes.times(for: token)
                // Heard of the last update made after it registered: a push reached it after that update was sent.
                if let last = ledger.lastUpdateStart(of: order), last > ledger.registeredAt(token) {
                    #expect(received.contains { $0 > last }, "device \(token) missed the last update of \(order.id)")
                }
                // No more pushes than updates, but for one resent because an instance died holding its claim.
                #expect(received.count <= stored.version, "device \(token): \(received.count) pushes for \(stored.version - 1) updates")
            }
        }
    }

    /// A local APNs for the order type of `environment`, checking provider tokens with the key in `folder` (or
    /// `publicKey`, when given, to refuse them).
    static func localAPNS(
        keys folder: String,
        environment: [String: String],
        log: PushLog,
        publicKey: PublicKey? = nil
    ) throws -> LocalAPNS {
        let publicKey = try publicKey ?? PublicKey(pem: Data(contentsOf: URL(fileURLWithPath: "\(folder)/apns-public.pem")))
        return LocalAPNS(
            publicKeys: [environment["WALLET_ORDERS_APNS_KEY_ID"]!: publicKey],
            teamID: environment["WALLET_ORDERS_APNS_TEAM_ID"],
            topics: [environment["WALLET_ORDERS_ORDER_TYPE"]!],
            recordsPushes: false,
            onPush: { push in if push.status == 200 { log.received(push.deviceToken) } }
        )
    }
}

/// An order as the merchant API answered its creation.
struct OrderRef: Hashable, Sendable {
    let type: String
    let id: String
    let token: String
}

/// One `wallet-orders serve` process of the pair, spoken to over HTTP.
struct Instance: Sendable {
    let pid: Int32
    let base: String

    /// Starts the process; answers the instance and the command that runs it (to stop it).
    static func start(
        in folder: TemporaryDirectory,
        name: String,
        environment: [String: String]
    ) async throws
        -> (Instance, BackgroundCommand)
    {
        let command = try BackgroundCommand(
            ["serve", "--port", "0"],
            in: folder,
            name: name,
            directory: DevelopmentServer.repository,
            environment: environment
        )
        let banner = try await command.waitFor("wallet-orders is serving")
        let port = try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1, "\(banner)")
        return (Instance(pid: command.process.processIdentifier, base: "http://127.0.0.1:\(port)"), command)
    }

    /// Sends a request; answers the status and the JSON body, or nil when the instance did not answer.
    func send(
        _ method: String,
        _ path: String,
        json: JSONValue? = nil,
        headers: [String: String] = [:]
    ) async
        -> (status: Int, body: JSONValue)?
    {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = json.serialized()
            request.setValue(
                method == "PATCH" ? "application/merge-patch+json" : "application/json",
                forHTTPHeaderField: "Content-Type"
            )
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            let http = response as? HTTPURLResponse
        else { return nil }
        return (http.statusCode, (try? JSONValue.parse(data)) ?? .null)
    }

    private var merchant: [String: String] { ["Authorization": "Bearer \(TwoInstancesTests.merchantKey)"] }

    func createOrder() async throws -> OrderRef {
        var body = SampleOrder.json().objectValue!
        for key in ["createdAt", "updatedAt", "merchant", "orderIdentifier", "orderTypeIdentifier"] { body.removeValue(forKey: key) }
        let answer = try #require(await send("POST", "/api/v1/orders", json: .object(body), headers: merchant))
        let details = try #require(answer.body["orderDetails"], "\(answer)")
        return OrderRef(
            type: details["orderTypeIdentifier"]!.stringValue!,
            id: details["orderIdentifier"]!.stringValue!,
            token: details["authenticationToken"]!.stringValue!
        )
    }

    /// Answers whether the instance acknowledged the registration (201 or 200).
    func register(_ order: OrderRef, device: String, pushToken: String) async throws -> Bool {
        let answer = await send(
            "POST",
            "/v1/devices/\(device)/registrations/\(order.type)/\(order.id)",
            json: .object(["pushToken": .string(pushToken)]),
            headers: ["Authorization": "AppleOrder \(order.token)"]
        )
        return answer.map { [200, 201].contains($0.status) } ?? false
    }

    /// The version the instance acknowledged, or nil when it did not answer 200.
    func patch(_ order: OrderRef, _ fields: [String: JSONValue]) async throws -> Int? {
        guard
            let answer = await send(
                "PATCH",
                "/api/v1/orders/\(order.type)/\(order.id)",
                json: .object(fields),
                headers: merchant
            ), answer.status == 200
        else { return nil }
        return answer.body["version"]?.intValue
    }

    func order(_ order: OrderRef) async throws -> (version: Int, document: JSONValue) {
        let answer = try #require(await send("GET", "/api/v1/orders/\(order.type)/\(order.id)", headers: merchant))
        return (try #require(answer.body["version"]?.intValue, "\(answer)"), answer.body["order"] ?? .null)
    }

    func registrations(_ order: OrderRef) async throws -> [String] {
        let answer = try #require(await send("GET", "/api/v1/orders/\(order.type)/\(order.id)/registrations", headers: merchant))
        return (answer.body["registrations"]?.arrayValue ?? []).compactMap { $0["pushToken"]?.stringValue }
    }

    /// Outbox rows waiting and being sent in `database` (a URL on `cluster`), counted in one statement: asked status by
    /// status through the merchant API, a push going from `sending` back to `pending` (a retry) between the two
    /// questions is in neither answer, and the outbox looks empty while it is not.
    static func outbox(in cluster: PostgresCluster, database: String) async throws -> [String: Int] {
        let name = String(database.split(separator: "/").last?.split(separator: "?").first ?? "")
        let row = try await cluster.psql(
            """
            SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'sending')
            FROM push_outbox
            """,
            database: name
        )
        let counts = row.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").compactMap { Int($0) }
        try #require(counts.count == 2, "the outbox's counts, not \(row)")
        return ["pending": counts[0], "sending": counts[1]]
    }

    func health() async throws -> Int {
        try #require(await send("GET", "/healthz")).status
    }
}

/// What the clients saw acknowledged, and which second instance is up, shared between them.
final class Ledger: Sendable {
    private struct State {
        var versions: [OrderRef: [Int]] = [:]
        var lastStart: [OrderRef: Date] = [:]
        var tokens: [OrderRef: Set<String>] = [:]
        var registeredAt: [String: Date] = [:]
        var second: Instance?
        var attempts = 0
    }

    private let state: Mutex<State>

    init(second: Instance) {
        state = Mutex(State(second: second))
    }

    /// The second instance while it is up.
    var second: Instance? {
        get { state.withLock { $0.second } }
        set { state.withLock { $0.second = newValue } }
    }
    var attempts: Int { state.withLock { $0.attempts } }
    var acknowledged: Int { state.withLock { $0.versions.values.map(\.count).reduce(0, +) } }

    func attempted() { state.withLock { $0.attempts += 1 } }

    func updated(_ order: OrderRef, version: Int, startedAt: Date) {
        state.withLock {
            $0.versions[order, default: []].append(version)
            $0.lastStart[order] = max($0.lastStart[order] ?? startedAt, startedAt)
        }
    }

    func registered(_ order: OrderRef, token: String) {
        state.withLock {
            _ = $0.tokens[order, default: []].insert(token)
            $0.registeredAt[token] = Date()
        }
    }

    func versions(of order: OrderRef) -> [Int] { state.withLock { $0.versions[order] ?? [] } }
    func lastUpdateStart(of order: OrderRef) -> Date? { state.withLock { $0.lastStart[order] } }
    func tokens(of order: OrderRef) -> Set<String> { state.withLock { $0.tokens[order] ?? [] } }
    func registeredAt(_ token: String) -> Date { state.withLock { $0.registeredAt[token] ?? .distantPast } }
}

/// When each device token heard from the local APNs.
final class PushLog: Sendable {
    private let times = Mutex<[String: [Date]]>([:])

    func received(_ token: String) { times.withLock { $0[token, default: []].append(Date()) } }
    func times(for token: String) -> [Date] { times.withLock { $0[token] ?? [] } }
}

/// A local APNs in this process noting when each push reached it, and the settings of a `serve` deployed beside it:
/// the development keys, `database`, the sample template, the merchant key of these tests, and this APNs.
struct LocalDeployment {
    let apns: LocalAPNS
    let pushes: PushLog
    let listener: LocalAPNS.Listener
    let environment: [String: String]

    /// `apnsPublicKey`, when given, is the key the local APNs checks provider tokens with instead of the deployment's.
    static func start(
        in folder: TemporaryDirectory,
        keys: [String: String],
        database: String,
        apnsPublicKey: PublicKey? = nil
    ) async throws -> LocalDeployment {
        let pushes = PushLog()
        let apns = try TwoInstancesTests.localAPNS(
            keys: folder.path("keys"),
            environment: keys,
            log: pushes,
            publicKey: apnsPublicKey
        )
        let identity = try LocalAPNS.TLSIdentity()
        let caFile = try folder.write("apns-ca.pem", Data(identity.certificateAuthority.pem.utf8))
        let listener = try await apns.listen(tls: identity.serverConfiguration())
        var settings = keys
        settings["WALLET_ORDERS_DATABASE"] = database
        settings["WALLET_ORDERS_TEMPLATE"] = SampleOrder.templateFolder.path
        settings["WALLET_ORDERS_MERCHANT_KEY"] = TwoInstancesTests.merchantKey
        settings["WALLET_ORDERS_PUBLIC_URL"] = "https://orders.example.com"
        settings["WALLET_ORDERS_APNS_ENVIRONMENT"] = "https://127.0.0.1:\(listener.port)"
        settings["WALLET_ORDERS_APNS_CA"] = caFile
        return LocalDeployment(apns: apns, pushes: pushes, listener: listener, environment: settings)
    }
}
