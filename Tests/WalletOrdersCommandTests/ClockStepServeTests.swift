import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 31, part 6, with real processes: two `wallet-orders serve` on one PostgreSQL database, the second run under
/// libfaketime with its wall clock an hour behind (its monotonic clock left alone), writing the same order in turn.
/// `updatedAt` and `Last-Modified` never go back, the device's listing with its tag never misses an update, and the
/// device hears of the last one.
@Suite(.timeLimit(.minutes(10))) struct ClockStepServeTests {
    /// libfaketime's preload library, from Debian's `faketime` package (in `make test-deps`).
    static let faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    @Test func anInstanceAnHourBehindKeepsUpdatedAtLastModifiedAndTheTagMonotonic() async throws {
        try #require(FileManager.default.fileExists(atPath: Self.faketime), "install Debian's faketime package (make test-deps)")
        let folder = try TemporaryDirectory("clock-step")
        let keys = try await makeDevelopmentKeys(in: folder)
        let deployment = try await LocalDeployment.start(in: folder, keys: keys, database: try TestStore.emptyPostgresDatabase())
        defer { deployment.listener.close() }
        var behindEnvironment = deployment.environment
        behindEnvironment["LD_PRELOAD"] = Self.faketime
        behindEnvironment["FAKETIME"] = "-3600"
        behindEnvironment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        let (right, rightCommand) = try await Instance.start(in: folder, name: "right", environment: deployment.environment)
        let (behind, behindCommand) = try await Instance.start(in: folder, name: "behind", environment: behindEnvironment)
        defer {
            rightCommand.stop()
            behindCommand.stop()
        }
        // The fault is there: the second instance's Date header is an hour behind the first's.
        let rightDate = try #require(try await Self.get(right, "/healthz").date)
        let behindDate = try #require(try await Self.get(behind, "/healthz").date)
        #expect(abs(rightDate.timeIntervalSince(behindDate) - 3_600) < 60, "\(rightDate) and \(behindDate)")

        let order = try await right.createOrder()
        #expect(try await behind.register(order, device: "device-1", pushToken: "cc01"))
        let device = ["Authorization": "AppleOrder \(order.token)"]
        let fetchPath = "/v1/orders/\(order.type)/\(order.id)"
        let listPath = "/v1/devices/device-1/registrations/\(order.type)"
        var tag = try #require(try await Self.get(right, listPath).json["lastModified"]?.stringValue)
        var (updatedAt, lastModified) = (Date.distantPast, Date.distantPast)
        var lastModifiedText = ""
        let rounds = 8
        for round in 0..<rounds {
            // Turns: right, behind, right… and the device asks the other instance, then the writer.
            let (writer, other) = round.isMultiple(of: 2) ? (right, behind) : (behind, right)
            let name = round.isMultiple(of: 2) ? "the instance whose clock is right" : "the instance an hour behind"
            let written = try #require(
                await writer.send(
                    "PATCH",
                    "/api/v1/orders/\(order.type)/\(order.id)",
                    json: .object(["orderNumber": .string("round-\(round)")]),
                    headers: ["Authorization": "Bearer \(TwoInstancesTests.merchantKey)"]
                )
            )
            #expect(written.status == 200, "\(written)")
            let new = try #require(written.body["order"]?["updatedAt"]?.stringValue.flatMap(RFC3339.parse), "\(written.body)")
            #expect(new > updatedAt, "updatedAt went forward when \(name) wrote")
            updatedAt = new

            let listed = try await Self.get(other, listPath + "?ordersModifiedSince=\(tag)")
            #expect(listed.json["orderIdentifiers"] == .array([.string(order.id)]), "listed after \(name) wrote")
            tag = try #require(listed.json["lastModified"]?.stringValue)
            var headers = device
            if !lastModifiedText.isEmpty { headers["If-Modified-Since"] = lastModifiedText }
            #expect(try await Self.get(other, fetchPath, headers: headers).status == 200, "not 304 after \(name) wrote")
            for reader in [other, writer] {
                let fetched = try await Self.get(reader, fetchPath, headers: device)
                let text = try #require(fetched.lastModified)
                let sent = try #require(HTTPDate.parse(text))
                #expect(sent >= lastModified, "Last-Modified went back (\(text)) after \(name) wrote")
                (lastModified, lastModifiedText) = (sent, text)
            }
        }

        // The device heard of the last update: the outbox drains, whichever instance claimed its push.
        var left = 1
        for _ in 0..<60 where left > 0 {
            let outbox = try await Instance.outbox(in: try PostgresCluster.shared, database: deployment.environment["WALLET_ORDERS_DATABASE"] ?? "")
            left = (outbox["pending"] ?? 0) + (outbox["sending"] ?? 0)
            if left > 0 { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(left == 0, "nothing left waiting or sending")
        #expect(!deployment.pushes.times(for: "cc01").isEmpty)
        // One push per pending version at most: never more pushes than versions written.
        #expect(deployment.pushes.times(for: "cc01").count <= rounds)
    }

    /// A GET's status, JSON body and the headers this test reads.
    private static func get(
        _ instance: Instance,
        _ path: String,
        headers: [String: String] = [:]
    ) async throws
        -> (status: Int, json: JSONValue, date: Date?, lastModified: String?)
    {
        var request = URLRequest(url: URL(string: instance.base + path)!)
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (
            http.statusCode,
            (try? JSONValue.parse(data)) ?? .null,
            (http.value(forHTTPHeaderField: "Date")).flatMap(HTTPDate.parse),
            http.value(forHTTPHeaderField: "Last-Modified")
        )
    }
}

/// HTTP dates (RFC 9110, IMF-fixdate), as the tests read them.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
