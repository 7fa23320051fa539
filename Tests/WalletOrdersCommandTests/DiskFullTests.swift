import Foundation
import Synchronization
import Testing
import WalletOrdersAPNSServer
import WalletOrdersModel
import WalletOrdersTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `wallet-orders serve` with its SQLite database on a small filesystem of its own (a tmpfs) that fills up under
/// merchant writes with large images: writes answer 507 with a sentence and `Retry-After`, reads and device fetches
/// go on, `/healthz` and `doctor` report the low space, the workers wait instead of spinning, nothing acknowledged
/// is lost, the database passes `PRAGMA integrity_check`, and once room is made writes succeed again with no
/// restart.
@Suite(.serialized, .timeLimit(.minutes(10))) struct DiskFullTests {
    /// The filesystem's size, and the free space below which `/healthz` answers 503.
    static let diskSize = "16m"
    static let minFree = 6 << 20
    /// Each new order's image: incompressible, so that each takes its size on disk.
    static let imageBytes = 256 << 10

    @Test func aFullDiskAnswers507KeepsReadsLosesNothingAndWritesAgainOnceThereIsRoom() async throws {
        let folder = try TemporaryDirectory("disk-full")
        let disk = folder.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try await Command.run("mount", ["-t", "tmpfs", "-o", "size=\(Self.diskSize),mode=0700", "tmpfs", disk])
        try #require(
            mounted.status == 0,
            "this test needs a filesystem of its own to fill, and mounting a tmpfs at \(disk) was refused (it needs root): \(mounted.error)"
        )
        // Lazily: a process still holding a file there must not leave the mount behind.
        // (A lazy unmount returns at once: waiting for it on this thread holds no cooperative thread for long.)
        defer { _ = try? Command.runBlocking("umount", ["--lazy", disk]) }
        let database = "\(disk)/orders.sqlite"

        let keys = try await makeDevelopmentKeys(in: folder)
        let deployment = try await LocalDeployment.start(in: folder, keys: keys, database: database)
        defer { deployment.listener.close() }
        let (apns, pushes) = (deployment.apns, deployment.pushes)
        var settings = deployment.environment
        settings["WALLET_ORDERS_MIN_FREE_DISK_BYTES"] = "\(Self.minFree)"
        let (server, command) = try await Instance.start(in: folder, name: "serve", environment: settings)
        defer { command.stop() }
        let client = DiskClient(base: server.base)

        let healthy = try await client.send("GET", "/healthz")
        #expect(healthy.status == 200 && healthy.body["disk"] == .string("ok"), "\(healthy)")

        // An order with two devices: one whose pushes APNs holds for two seconds (a round is in flight when the disk
        // fills, and its outcomes must be recorded), one APNs refuses twice with 503 (a retry falls due while the
        // disk is full, and must wait without spinning).
        let ledger = DiskLedger()
        let first = try await client.create(image: nil)
        apns.set(.stall(seconds: 2), for: "aaaa0001")
        apns.set(.fail(status: 503, reason: .serviceUnavailable, times: 2), for: "aaaa0002")
        for (device, token) in [("held", "aaaa0001"), ("refused", "aaaa0002")] {
            #expect(try await client.register(first, device: device, pushToken: token) == 201)
            ledger.registered(first, device: device)
        }

        // Most of the room taken by a file, the rest by merchant writes: three clients create orders with a 256 KiB
        // image each, register a device for each, and update the first order, until the creations answer 507.
        let filler = try Self.fill("\(disk)/filler", leaving: 3 << 20)
        // /healthz reads the free space at most once a second.
        var low = try await client.send("GET", "/healthz")
        for _ in 0..<600 where low.status == 200 {
            try await Task.sleep(for: .milliseconds(100))
            low = try await client.send("GET", "/healthz")
        }
        #expect(low.status == 503, "\(low)")
        #expect(low.body["disk"]?.stringValue?.hasPrefix("the disk holding the database has") == true, "\(low)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<3 {
                group.addTask {
                    var refusals = 0
                    for round in 0..<200 where refusals < 3 {
                        let created = try await client.createAnswer(image: Self.image())
                        ledger.answered(created.status)
                        guard created.status == 201, let order = DiskClient.order(from: created) else {
                            refusals += created.status == 507 ? 1 : 0
                            continue
                        }
                        refusals = 0
                        ledger.created(order)
                        let device = "d-\(worker)-\(round)"
                        let registered = try await client.register(order, device: device, pushToken: String(format: "%04x%04x", worker, round))
                        ledger.answered(registered)
                        if registered == 201 { ledger.registered(order, device: device) }
                        let patched = try await client.send(
                            "PATCH",
                            "/api/v1/orders/\(first.type)/\(first.id)",
                            json: .object(["orderNumber": .string("w\(worker)-r\(round)")]),
                            merchant: true
                        )
                        ledger.answered(patched.status)
                        if patched.status == 200, let version = patched.body["version"]?.intValue { ledger.updated(version) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let statuses = ledger.statuses
        #expect(Set(statuses.keys).isSubset(of: [200, 201, 507]), "every answer under load was 200, 201 or 507: \(statuses)")
        #expect((statuses[507] ?? 0) >= 3 && ledger.createdOrders.count >= 3, "the load filled the disk: \(statuses)")

        // Every last byte taken. The write-ahead log may still hold room from before a checkpoint, so each kind of
        // write is made until the log's room is spent too: a new order with an image, an update, a registration.
        // Each is then refused with 507, the sentence and Retry-After.
        let last = try Self.fill("\(disk)/last-bytes", leaving: 0)
        var refusals: [String: DiskClient.Answer] = [:]
        for _ in 0..<200 {
            let created = try await client.createAnswer(image: Self.image())
            if let order = DiskClient.order(from: created) { ledger.created(order) }
            if created.status != 201 {
                refusals["create"] = created
                break
            }
        }
        for attempt in 0..<200 {
            let patched = try await client.send(
                "PATCH",
                "/api/v1/orders/\(first.type)/\(first.id)",
                json: .object(["orderNumber": .string("full-\(attempt)")]),
                merchant: true
            )
            if patched.status == 200, let version = patched.body["version"]?.intValue { ledger.updated(version) }
            if patched.status != 200 {
                refusals["update"] = patched
                break
            }
        }
        for attempt in 0..<400 {
            let device = "full-\(attempt)"
            let registered = try await client.registerAnswer(first, device: device, pushToken: String(format: "cccc%04x", attempt))
            if registered.status == 201 { ledger.registered(first, device: device) }
            if registered.status != 201 {
                refusals["registration"] = registered
                break
            }
        }
        for kind in ["create", "update", "registration"] {
            let refused = refusals[kind]
            #expect(refused?.status == 507, "\(kind): \(refused.map(\.description) ?? "never refused")")
            #expect(refused?.retryAfter == "60", "\(kind)")
            #expect(refused?.body["error"]?.stringValue?.hasPrefix("the database's disk is full") == true, "\(kind)")
        }

        // Reads go on: the merchant's order, the device's fetch and listing, /metrics.
        let read = try await client.send("GET", "/api/v1/orders/\(first.type)/\(first.id)", merchant: true)
        #expect(read.status == 200 && read.body["version"]?.intValue == ledger.lastVersion, "\(read.status) \(ledger.lastVersion)")
        let fetched = try await client.send(
            "GET",
            "/v1/orders/\(first.type)/\(first.id)",
            headers: ["Authorization": "AppleOrder \(first.token)"]
        )
        #expect(fetched.status == 200)
        #expect(try await client.send("GET", "/v1/devices/held/registrations/\(first.type)").status == 200)
        #expect(try await client.send("GET", "/metrics").status == 200)
        let full = try await client.send("GET", "/healthz")
        #expect(full.status == 503 && (full.body["diskFreeBytes"]?.intValue ?? .max) < Self.minFree, "\(full)")

        // doctor says so, as a warning: serve would start and answer reads.
        let doctor = try await Command.run(Command.walletOrdersBinary, ["doctor"], environment: settings)
        #expect(doctor.status == 0, "\(doctor.output)\(doctor.error)")
        #expect(doctor.output.contains("warning  \(disk): the disk holding the database has"), "\(doctor.output)")

        // The server goes on while its writes are refused (how little CPU its waiting workers use is measured by a
        // benchmark, not asserted here).
        #expect(command.process.isRunning)

        // Room again: no restart, and writes succeed.
        try FileManager.default.removeItem(atPath: filler)
        try FileManager.default.removeItem(atPath: last)
        var recovered = try await client.send("GET", "/healthz")
        for _ in 0..<600 where recovered.status != 200 {
            try await Task.sleep(for: .milliseconds(100))
            recovered = try await client.send("GET", "/healthz")
        }
        #expect(recovered.status == 200 && recovered.body["disk"] == .string("ok"), "\(recovered)")
        let again = try await client.send(
            "PATCH",
            "/api/v1/orders/\(first.type)/\(first.id)",
            json: .object(["orderNumber": .string("after")]),
            merchant: true
        )
        #expect(again.status == 200, "\(again)")
        if let version = again.body["version"]?.intValue { ledger.updated(version) }
        let created = try await client.createAnswer(image: Self.image())
        #expect(created.status == 201, "\(created.status) \(created.body)")
        if let order = DiskClient.order(from: created) {
            ledger.created(order)
            #expect(try await client.register(order, device: "after", pushToken: "bbbb0001") == 201)
            ledger.registered(order, device: "after")
        }

        // The pushes queued before and during the full disk all go out, and none stays claimed. Counted in one
        // statement: asked status by status, a push going from `sending` back to `pending` (a retry) between the two
        // questions was in neither answer, and the outbox looked empty while a retry of aaaa0002 still waited (about
        // one run in a hundred under load).
        var waiting: [String] = []
        for _ in 0..<60 {
            waiting = try await Self.query(database, "SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending')")
            if waiting == ["0"] { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(waiting == ["0"], "nothing left waiting or sending: \(waiting)")
        if pushes.times(for: "aaaa0001").isEmpty || pushes.times(for: "aaaa0002").isEmpty {
            // What became of them, for whoever reads a failure.
            let failed = try await client.send("GET", "/api/v1/pushes?status=failed&limit=500", merchant: true)
            let delivered = try await client.send("GET", "/api/v1/pushes?status=delivered&limit=500", merchant: true)
            let outbox = try await Self.query(
                database,
                "SELECT id, device_identifier, status, attempts, next_attempt_at, last_error, created_at, updated_at FROM push_outbox ORDER BY id"
            )
            let registered = try await Self.query(
                database,
                "SELECT device_identifier, push_token, created_at FROM registrations WHERE order_identifier = '\(first.id)'"
            )
            Issue.record(
                """
                both devices of the first order get a push; failed: \(failed.body), delivered: \(delivered.body)
                outbox: \(outbox.joined(separator: "\n"))
                registrations of the first order: \(registered.joined(separator: "\n"))
                log: \(command.output.suffix(6_000))
                """
            )
        }

        // Stopped: the file is sound, and holds every write that was acknowledged.
        #expect(await command.stopped(), "serve stopped cleanly")
        let check = try await Command.run("sqlite3", [database, "PRAGMA integrity_check"])
        #expect(check.status == 0 && check.output == "ok\n", "\(check.output)\(check.error)")
        let orders = try await Self.query(database, "SELECT order_identifier FROM orders")
        #expect(Set(ledger.createdOrders.map(\.id)).isSubset(of: Set(orders)), "an acknowledged order is missing")
        let version = try await Self.query(database, "SELECT version FROM orders WHERE order_identifier = '\(first.id)'")
        #expect(version == ["\(ledger.lastVersion)"], "the first order is at its last acknowledged version")
        let devices = try await Self.query(database, "SELECT device_identifier FROM registrations")
        #expect(Set(ledger.devices).isSubset(of: Set(devices)), "an acknowledged registration is missing")
        // The figures RELIABILITY.md records.
        let log = command.output
        func lines(_ text: String) -> Int { log.components(separatedBy: text).count - 1 }
        print(
            "disk full: answers under load \(statuses.sorted { $0.key < $1.key }); acknowledged in all: "
                + "\(ledger.createdOrders.count) orders, \(ledger.lastVersion - 1) updates, \(ledger.devices.count) registrations; "
                + "logged: \(lines("write refused")) writes refused, "
                + "\(lines("cannot record push outcomes")) push outcomes recorded again, \(lines("cannot claim pushes")) push claims "
                + "tried again"
        )
    }

    /// A PNG by its signature, then random bytes: nothing compresses it.
    static func image() -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<(imageBytes - bytes.count) / 8 {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes += $0 }
        }
        return Data(bytes)
    }

    /// Writes a file at `path` until the filesystem has `leaving` bytes free (0: until it is full); answers the path.
    static func fill(_ path: String, leaving: Int) throws -> String {
        var info = statvfs()
        guard statvfs((path as NSString).deletingLastPathComponent, &info) == 0 else { throw DiskFullError("statvfs failed") }
        var remaining = leaving == 0 ? Int.max : max(0, Int(info.f_bavail) * Int(info.f_frsize) - leaving)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DiskFullError("cannot create \(path)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 64 << 10)
        while remaining > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min(chunk.count, remaining)) }
            if written < 0, errno == ENOSPC { break }
            guard written > 0 else { throw DiskFullError("cannot write \(path): \(String(cString: strerror(errno)))") }
            remaining -= written
        }
        return path
    }

    /// The first column of each row `sql` answers, read with the `sqlite3` command.
    static func query(_ database: String, _ sql: String) async throws -> [String] {
        let result = try await Command.run("sqlite3", [database, sql])
        guard result.status == 0 else { throw DiskFullError("sqlite3 \(sql): \(result.error)") }
        return result.output.split(separator: "\n").map(String.init)
    }
}

struct DiskFullError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the server acknowledged while its disk filled, and every status it answered.
final class DiskLedger: Sendable {
    private struct State {
        var created: [OrderRef] = []
        var devices: [String] = []
        var lastVersion = 1
        var statuses: [Int: Int] = [:]
    }

    private let state = Mutex(State())

    func created(_ order: OrderRef) { state.withLock { $0.created.append(order) } }
    func registered(_ order: OrderRef, device: String) { state.withLock { $0.devices.append(device) } }
    func updated(_ version: Int) { state.withLock { $0.lastVersion = max($0.lastVersion, version) } }
    func answered(_ status: Int) { state.withLock { $0.statuses[status, default: 0] += 1 } }

    var createdOrders: [OrderRef] { state.withLock { $0.created } }
    var devices: [String] { state.withLock { $0.devices } }
    var lastVersion: Int { state.withLock { $0.lastVersion } }
    var statuses: [Int: Int] { state.withLock { $0.statuses } }
}

/// The merchant API and the device API of one server, over URLSession, with the answers' headers.
struct DiskClient: Sendable {
    let base: String

    struct Answer: Sendable, CustomStringConvertible {
        let status: Int
        let retryAfter: String?
        let body: JSONValue

        var description: String { "\(status) \(String(decoding: body.serialized(), as: UTF8.self))" }
    }

    func send(
        _ method: String,
        _ path: String,
        json: JSONValue? = nil,
        merchant: Bool = false,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 30
        // URLSession keeps GET answers without Cache-Control and would answer /healthz from its cache.
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if merchant { request.setValue("Bearer \(TwoInstancesTests.merchantKey)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = json.serialized()
            request.setValue(
                method == "PATCH" ? "application/merge-patch+json" : "application/json",
                forHTTPHeaderField: "Content-Type"
            )
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Answer(
            status: http.statusCode,
            retryAfter: http.value(forHTTPHeaderField: "Retry-After"),
            body: (try? JSONValue.parse(data)) ?? .null
        )
    }

    /// Creates the sample order with `image` as its file `photo.png`.
    func createAnswer(image: Data?) async throws -> Answer {
        var body = SampleOrder.json().objectValue!
        for key in ["createdAt", "updatedAt", "merchant", "orderIdentifier", "orderTypeIdentifier"] { body.removeValue(forKey: key) }
        if let image { body["assets"] = .object(["photo.png": .string(image.base64EncodedString())]) }
        return try await send("POST", "/api/v1/orders", json: .object(body), merchant: true)
    }

    func create(image: Data?) async throws -> OrderRef {
        let answer = try await createAnswer(image: image)
        return try #require(Self.order(from: answer), "\(answer)")
    }

    static func order(from answer: Answer) -> OrderRef? {
        guard answer.status == 201, let details = answer.body["orderDetails"],
            let type = details["orderTypeIdentifier"]?.stringValue, let id = details["orderIdentifier"]?.stringValue,
            let token = details["authenticationToken"]?.stringValue
        else { return nil }
        return OrderRef(type: type, id: id, token: token)
    }

    /// The registration's status.
    func register(_ order: OrderRef, device: String, pushToken: String) async throws -> Int {
        try await registerAnswer(order, device: device, pushToken: pushToken).status
    }

    func registerAnswer(_ order: OrderRef, device: String, pushToken: String) async throws -> Answer {
        try await send(
            "POST",
            "/v1/devices/\(device)/registrations/\(order.type)/\(order.id)",
            json: .object(["pushToken": .string(pushToken)]),
            headers: ["Authorization": "AppleOrder \(order.token)"]
        )
    }
}
