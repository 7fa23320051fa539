import Foundation
import Testing
import WalletOrdersAPNSServer
import WalletOrdersModel
import WalletOrdersTesting

/// Two `wallet-orders serve` processes on a PostgreSQL server of their own, which is stopped as a crash stops it and
/// started again: nothing hangs and nothing spins meanwhile, and afterwards both instances go on by themselves.
@Suite(.timeLimit(.minutes(10))) struct PostgresOutageTests {
    /// The CPU time (user and system) process `pid` has used so far, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// What `attempt` answers, timed.
    static func timed<T>(_ attempt: () async throws -> T) async rethrows -> (T, Duration) {
        let start = ContinuousClock.now
        let value = try await attempt()
        return (value, ContinuousClock.now - start)
    }

    @Test func whilePostgreSQLIsDownNothingHangsOrSpinsAndAfterwardsBothInstancesGoOn() async throws {
        // Durable, as production runs: the shared test cluster trades that away for speed, and a stop with
        // `-m immediate` is a crash.
        let cluster = try await PostgresCluster.start(settings: ["fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"])
        defer { Task { await cluster.stop() } }
        let folder = try TemporaryDirectory("postgres-outage")
        let keys = try await makeDevelopmentKeys(in: folder)
        let deployment = try await LocalDeployment.start(in: folder, keys: keys, database: try cluster.createDatabase())
        defer { deployment.listener.close() }
        let pushes = deployment.pushes
        let environment = deployment.environment
        let (first, firstCommand) = try await Instance.start(in: folder, name: "first", environment: environment)
        let (second, secondCommand) = try await Instance.start(in: folder, name: "second", environment: environment)
        defer {
            firstCommand.stop()
            secondCommand.stop()
        }

        let order = try await first.createOrder()
        #expect(try await second.register(order, device: "device-1", pushToken: "aa01"))
        #expect(try await first.patch(order, ["orderNumber": .string("N-1")]) == 2)
        let device = ["Authorization": "AppleOrder \(order.token)"]
        let path = "/v1/orders/\(order.type)/\(order.id)"
        // Each instance has answered the device once, so its fetch cache holds version 2.
        for instance in [first, second] { #expect(await instance.send("GET", path, headers: device)?.status == 200) }

        try await cluster.stopServer()
        // The probe looks once a second: each instance knows the database is away once /healthz says so.
        for instance in [first, second] {
            let down = await eventually { await instance.send("GET", "/healthz")?.status == 503 }
            #expect(down, "\(instance.base) sees the database away")
        }
        // Each request below is answered within the client's own timeout (10 s), not after the pool's minute: what
        // they take, and the CPU the servers use meanwhile, are measured by Benchmarks/kill-connections.sh.
        for instance in [first, second] {
            let (fetched, fetchTime) = await Self.timed { await instance.send("GET", path, headers: device) }
            #expect(fetched?.status == 200, "a fetch the cache can answer: \(String(describing: fetched))")
            let (write, writeTime) = await Self.timed {
                await instance.send(
                    "PATCH",
                    "/api/v1/orders/\(order.type)/\(order.id)",
                    json: .object(["orderNumber": .string("N-down")]),
                    headers: ["Authorization": "Bearer \(TwoInstancesTests.merchantKey)"]
                )
            }
            #expect(write?.status == 503, "\(String(describing: write))")
            #expect(write?.body["error"]?.stringValue?.contains("database cannot be reached") == true)
            let (health, healthTime) = await Self.timed { await instance.send("GET", "/healthz") }
            #expect(health?.status == 503)
            // /metrics still answers, and says the database is away (the alert reads this).
            let metrics = try await instance.metrics()
            #expect(DashboardAndAlertsTests.value("wallet_orders_database_reachable", in: metrics) == 0, "\(metrics)")
            print("outage \(instance.base): fetch \(fetchTime), write \(writeTime), healthz \(healthTime)")
        }

        try await cluster.startServer()
        let restarted = ContinuousClock.now
        // Both instances write again by themselves, and the device hears of the write.
        let before = pushes.times(for: "aa01").count
        var versions: [Int?] = []
        for instance in [first, second] {
            let version = try await MerchantCommandTests.eventually(seconds: 20) {
                try await instance.patch(order, ["orderNumber": .string("N-after-\(instance.base.suffix(5))")])
            } until: {
                $0 != nil
            }
            versions.append(version)
        }
        #expect(
            versions == [3, 4],
            "every acknowledged write is there: \(versions)\n\(firstCommand.output.suffix(4_000))"
        )
        let pushed = try await MerchantCommandTests.eventually(seconds: 20) {
            pushes.times(for: "aa01").count
        } until: {
            $0 > before
        }
        #expect(pushed > before, "a push after the outage")
        print("recovered: both instances wrote within \(ContinuousClock.now - restarted) of the restart")
        let healthy = try await MerchantCommandTests.eventually(seconds: 10) {
            [await first.send("GET", "/healthz")?.status, await second.send("GET", "/healthz")?.status]
        } until: {
            $0 == [200, 200]
        }
        #expect(healthy == [200, 200])
        for instance in [first, second] {
            #expect(DashboardAndAlertsTests.value("wallet_orders_database_reachable", in: try await instance.metrics()) == 1)
        }
        let outbox = try await MerchantCommandTests.eventually(seconds: 20) {
            try await Instance.outbox(in: cluster, database: deployment.environment["WALLET_ORDERS_DATABASE"] ?? "")
        } until: {
            $0["pending"] == 0 && $0["sending"] == 0
        }
        #expect(outbox["pending"] == 0 && outbox["sending"] == 0, "\(outbox)")
    }

    @Test func connectionsKilledInALoopNeverLeaveARequestWaitingAndBothInstancesGoOn() async throws {
        let cluster = try await PostgresCluster.shared
        let database = try await cluster.createDatabase()
        let name = String(try #require(database.split(separator: "/").last?.split(separator: "?").first))
        let folder = try TemporaryDirectory("postgres-kills")
        let keys = try await makeDevelopmentKeys(in: folder)
        let deployment = try await LocalDeployment.start(in: folder, keys: keys, database: database)
        defer { deployment.listener.close() }
        let pushes = deployment.pushes
        let (first, firstCommand) = try await Instance.start(in: folder, name: "first", environment: deployment.environment)
        let (second, secondCommand) = try await Instance.start(in: folder, name: "second", environment: deployment.environment)
        defer {
            firstCommand.stop()
            secondCommand.stop()
        }
        let order = try await first.createOrder()
        #expect(try await second.register(order, device: "device-1", pushToken: "bb01"))
        // One order each, so that the two never race for one order (that answers 409 after a few tries).
        let other = try await second.createOrder()

        // Every connection of both instances to this database, the listeners' included, killed every 0.3 s for 8 s
        // while each instance takes merchant writes one after another.
        let end = ContinuousClock.now + .seconds(8)
        let killing = Task {
            var killed = 0
            while ContinuousClock.now < end {
                let output = try await cluster.psql(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = '\(name)' AND pid <> pg_backend_pid()
                    """
                )
                killed += Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                try await Task.sleep(for: .milliseconds(300))
            }
            return killed
        }
        let answers = try await withThrowingTaskGroup(of: [(status: Int?, error: String?, time: Duration)].self) { group in
            for (instance, order) in [(first, order), (second, other)] {
                group.addTask {
                    var answers: [(status: Int?, error: String?, time: Duration)] = []
                    var number = 0
                    while ContinuousClock.now < end {
                        number += 1
                        let (answer, time) = await Self.timed {
                            await instance.send(
                                "PATCH",
                                "/api/v1/orders/\(order.type)/\(order.id)",
                                json: .object(["orderNumber": .string("K-\(number)")]),
                                headers: ["Authorization": "Bearer \(TwoInstancesTests.merchantKey)"]
                            )
                        }
                        answers.append((answer?.status, answer?.body["error"]?.stringValue, time))
                    }
                    return answers
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let killed = try await killing.value
        let written = answers.filter { $0.status == 200 }.count
        let refused = answers.filter { $0.status == 503 }
        let slowest = answers.map(\.time).max() ?? .zero
        print("kills: \(killed) connections; writes: \(written) 200, \(refused.count) 503, slowest \(slowest)")
        #expect(killed > 0, "the loop killed connections: \(killed)")
        // Before: about one write every few seconds waited forever on a query lost with its connection, and its
        // order's lock kept every later write to the order waiting too.
        #expect(answers.allSatisfy { $0.status != nil }, "every write answered within 10 s")
        #expect(answers.allSatisfy { $0.status == 200 || $0.status == 503 }, "\(answers.filter { $0.status != 200 && $0.status != 503 })")
        #expect(refused.allSatisfy { $0.error?.contains("database") == true }, "\(refused)")
        // How many went through depends on the machine's speed (Benchmarks/kill-connections.sh measures it); that some
        // did, between kills, is what holds anywhere.
        #expect(written > 0, "writes went through between kills: \(written) of \(answers.count)")

        // After: both instances write, both listen again, the device hears of a write, and the outbox drains.
        for instance in [first, second] {
            let version = try await MerchantCommandTests.eventually(seconds: 20) {
                try await instance.patch(order, ["orderNumber": .string("after")])
            } until: {
                $0 != nil
            }
            #expect(version != nil, "\(instance.base) writes again")
        }
        let listening = try await MerchantCommandTests.eventually(seconds: 20) {
            try await cluster.psql(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = '\(name)' AND query LIKE 'LISTEN%' AND state = 'idle'
                """
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        } until: {
            $0 == "2"
        }
        #expect(listening == "2", "each instance holds a LISTEN connection again")
        let before = pushes.times(for: "bb01").count
        #expect(try await first.patch(order, ["orderNumber": .string("heard")]) != nil)
        let pushed = try await MerchantCommandTests.eventually(seconds: 20) {
            pushes.times(for: "bb01").count
        } until: {
            $0 > before
        }
        #expect(pushed > before, "a push after the kills")
        let outbox = try await MerchantCommandTests.eventually(seconds: 20) {
            try await Instance.outbox(in: cluster, database: deployment.environment["WALLET_ORDERS_DATABASE"] ?? "")
        } until: {
            $0["pending"] == 0 && $0["sending"] == 0
        }
        #expect(outbox["pending"] == 0 && outbox["sending"] == 0, "\(outbox)")
        // Before, a server with a write stuck that way never stopped on SIGTERM.
        for command in [firstCommand, secondCommand] { #expect(await command.stopped(), "stops on SIGTERM:\n\(command.output.suffix(3_000))") }
    }
}
