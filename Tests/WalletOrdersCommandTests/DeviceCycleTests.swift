import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

/// A simulated Wallet device against the real `wallet-orders serve` and the local APNs: the whole life of an order
/// on a device, as Wallet lives it.
@Suite(.timeLimit(.minutes(10))) struct DeviceCycleTests {
    @Test(arguments: StoreEngine.allCases)
    func aDeviceFollowsAnOrderFromCheckoutToUnregisteringThroughTheServerAndTheLocalAPNS(engine: StoreEngine) async throws {
        let cycle = try await WalletCycle.start(engine)
        defer { cycle.stop() }
        let apns = try #require(cycle.apns)
        let details = try await OrderDetails(json: cycle.createOrder())
        let device = try SimulatedDevice(trustedRootsPEM: cycle.rootPEM, allowsHTTPWebService: true, client: patientClient())
        device.connect(to: apns)
        defer { device.stop() }

        // Checkout: the device fetches the package, checks it against the development root, and registers.
        let added = try await device.add(details)
        #expect(added.isRegistered)
        #expect(added.order.orderIdentifier == details.orderIdentifier)
        #expect(added.lastModified != nil && added.etag != nil)
        let checkout = device.transcript
        try #require(checkout.map(\.kind) == [.fetch, .verified, .added, .register], "\(checkout.map(\.description))")
        #expect(checkout[0].status == 200 && checkout[3].status == 201)
        #expect(checkout[1].detail?.contains("signature chains to the trusted root") == true)

        // A push before any change: the first listing (no tag yet) names the order, and the conditional fetch
        // answers 304.
        let unchanged = try await steps(
            of: device,
            until: { $0.kind == .fetch },
            after: {
                let status = try await cycle.push(to: device.pushToken)
                #expect(status == 200)
            }
        )
        try #require(unchanged.map(\.kind) == [.push, .list, .fetch], "\(unchanged.map(\.description))")
        #expect(unchanged[1].status == 200 && unchanged[1].url?.contains("ordersModifiedSince") == false)
        #expect(unchanged[2].status == 304)
        let tag = try #require(
            await device.ordersModifiedSince(
                webServiceURL: details.webServiceURL,
                orderTypeIdentifier: details.orderTypeIdentifier
            )
        )

        // The merchant ships: the server pushes, the device lists with its tag and fetches the new version.
        let shipped = try await steps(
            of: device,
            until: { $0.kind == .verified || $0.kind == .refused },
            after: {
                let queued = try await cycle.patch(details, #"{"status": "completed"}"#)
                #expect(queued == 1)
            }
        )
        try #require(shipped.map(\.kind) == [.push, .list, .fetch, .verified], "\(shipped.map(\.description))")
        #expect(shipped[1].url?.hasSuffix("ordersModifiedSince=\(tag)") == true && shipped[1].status == 200)
        #expect(shipped[2].status == 200)
        let updated = try #require(await device.order(details.orderTypeIdentifier, details.orderIdentifier))
        #expect(updated.versions == 2)
        #expect(updated.order["status"] == .string("completed"))
        #expect(updated.updatedAt! > added.updatedAt!)
        #expect(apns.received.filter { $0.deviceToken == device.pushToken }.allSatisfy { $0.status == 200 })

        // A push with nothing new: the listing with the new tag answers 204, and nothing is fetched. On PostgreSQL
        // the tag is capped by the cluster's oldest running transaction (other tests share the cluster), so the
        // order may be listed once more; the conditional fetch then answers 304 and nothing new is kept.
        let quiet = try await steps(
            of: device,
            until: { ($0.kind == .list && $0.status == 204) || $0.kind == .fetch },
            after: {
                let status = try await cycle.push(to: device.pushToken)
                #expect(status == 200)
            }
        )
        if quiet.map(\.kind) == [.push, .list, .fetch] && engine == .postgres {
            #expect(quiet[1].status == 200 && quiet[2].status == 304)
        } else {
            try #require(quiet.map(\.kind) == [.push, .list], "\(quiet.map(\.description))")
            #expect(quiet[1].status == 204)
        }
        #expect(try #require(await device.order(details.orderTypeIdentifier, details.orderIdentifier)).versions == 2)

        // The order is deleted from the device: it unregisters, and later updates push to nobody.
        try await device.remove(details.orderTypeIdentifier, details.orderIdentifier)
        #expect(device.transcript.suffix(2).map(\.kind) == [.removed, .unregister])
        #expect(device.transcript.last?.status == 200)
        let pushesBefore = apns.received.count
        let outboxBefore = try await cycle.merchant.pushes(details)
        await #expect(try cycle.patch(details, #"{"status": "open"}"#) == 0)
        // Pushes are queued only in the update's own transaction: an outbox without a new row for the order means
        // no push for this update can ever go out.
        await #expect(try cycle.merchant.pushes(details) == outboxBefore)
        #expect(!outboxBefore.isEmpty && outboxBefore.allSatisfy { !$0.hasSuffix("pending") && !$0.hasSuffix("sending") })
        #expect(apns.received.count == pushesBefore)
        #expect(device.transcript.filter { $0.kind == .log }.isEmpty, "nothing went wrong, so nothing was logged")
        #expect(
            !device.transcript.contains { $0.description.contains(details.authenticationToken) },
            "the transcript never shows the authentication token"
        )
    }

    /// A man in the middle of a plain-http development server changes order.json in the package of an update: the
    /// device refuses that version, keeps the one it had, and tells the server through /v1/log.
    @Test func aTamperedPackageIsRefusedKeptOutAndReportedToTheServiceLog() async throws {
        let cycle = try await WalletCycle.start(.sqlite)
        defer { cycle.stop() }
        let apns = try #require(cycle.apns)
        let details = try await OrderDetails(json: cycle.createOrder())
        let tampering = Switch()
        let proxy = try Self.proxy(to: cycle.base, tampering: tampering)
        let (merchant, rootPEM) = (cycle.merchant, try cycle.rootPEM)

        try await proxy.test(.live) { client in
            var viaProxy = details
            // The test application listens on localhost, which may be ::1.
            viaProxy.webServiceURL = "http://localhost:\(try #require(client.port))"
            let device = try SimulatedDevice(trustedRootsPEM: rootPEM, allowsHTTPWebService: true, client: patientClient())
            device.connect(to: apns)
            defer { device.stop() }
            let added = try await device.add(viaProxy)
            #expect(added.isRegistered)

            tampering.turnOn()
            let refused = try await steps(
                of: device,
                until: { $0.kind == .log },
                after: {
                    let queued = try await merchant.patch(details, #"{"status": "completed"}"#)
                    #expect(queued == 1)
                }
            )
            try #require(refused.map(\.kind) == [.push, .list, .fetch, .refused, .log], "\(refused.map(\.description))")
            #expect(
                refused[3].detail?.contains("order.json does not match its digest in manifest.json") == true,
                "\(refused[3])"
            )
            #expect(refused[4].status == 200)

            let kept = try #require(await device.order(details.orderTypeIdentifier, details.orderIdentifier))
            #expect(kept.versions == 1)
            #expect(kept.order["status"] == added.order["status"])
            let logs = try await merchant.logs()
            #expect(
                logs.contains {
                    $0.contains(
                        "Get order task (order type \(details.orderTypeIdentifier), "
                            + "order identifier \(details.orderIdentifier)"
                    ) && $0.contains("Order package is invalid")
                },
                "\(logs)"
            )
            #expect(!logs.contains { $0.contains(details.authenticationToken) })
        }
    }

    /// `device watch` beside `serve`, as the README tour runs it: each step printed, with the statuses.
    @Test func deviceWatchPrintsEachStepFromCheckoutToUnregistering() async throws {
        let apnsPort = try freePort()
        let cycle = try await WalletCycle.start(.sqlite, apnsPort: apnsPort)
        defer { cycle.stop() }
        let created = try await cycle.folder.write("created.json", cycle.createOrder())
        let details = try OrderDetails(json: Data(contentsOf: URL(fileURLWithPath: created)))
        let watch = try BackgroundCommand(
            ["device", "watch", "--order-details", created, "--keys", cycle.keys.path, "--apns-port", "\(apnsPort)"],
            in: cycle.folder,
            name: "device"
        )
        let started = try await watch.waitFor("Ctrl-C to stop", seconds: 60)
        #expect(started.contains("WALLET_ORDERS_APNS_ENVIRONMENT=https://127.0.0.1:\(apnsPort)"), "\(started)")
        #expect(
            started.contains(
                " fetch GET \(details.webServiceURL)/v1/orders/\(details.orderTypeIdentifier)/"
                    + "\(details.orderIdentifier) → 200 in "
            ),
            "\(started)"
        )
        #expect(started.contains(" register POST ") && started.contains("→ 201 in "), "\(started)")

        await #expect(try cycle.patch(details, #"{"status": "completed"}"#) == 1)
        let output = try await watch.waitFor(", status completed, signature chains to the trusted root", seconds: 60)
        let lines = output.split(separator: "\n").drop { !$0.contains(" push topic ") }
        #expect(lines.count >= 4, "\(output)")
        let steps = Array(lines.prefix(4))
        #expect(steps.count == 4 && steps[1].contains(" list GET ") && steps[1].contains("→ 200 in "), "\(output)")
        #expect(steps.count == 4 && steps[2].contains(" fetch GET ") && steps[2].contains("→ 200 in "), "\(output)")
        #expect(steps.count == 4 && steps[3].contains(" verified "), "\(output)")

        #expect(await watch.stopped())
        #expect(watch.output.contains(" unregister DELETE "), "\(watch.output)")
        #expect(watch.output.split(separator: "\n").last?.contains("→ 200 in ") == true, "\(watch.output)")
    }

    /// A plain HTTP proxy to `base` that, while `tampering` is set, changes order.json in every package it passes on
    /// (and leaves manifest.json and the signature as they were).
    static func proxy(to base: String, tampering: Switch) throws -> some ApplicationProtocol {
        let client = try patientClient()
        let router = Router()
        let forward: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [DeviceHTTPClient.HeaderField] = []
            for field in request.headers
            where ["authorization", "content-type", "if-modified-since", "if-none-match"]
                .contains(field.name.canonicalName)
            {
                headers.append(.init(field.name.rawName, field.value))
            }
            let answer = try await client.send(
                request.method.rawValue,
                base + request.uri.description,
                headers: headers,
                body: body.readableBytes > 0 ? Data(buffer: body) : nil
            )
            var bytes = answer.body
            if answer.status == 200, request.uri.path.hasPrefix("/v1/orders/"), tampering.isOn {
                bytes = try tamper(bytes)
            }
            var fields = HTTPFields()
            if let value = answer.header("Content-Type") { fields[.contentType] = value }
            if let value = answer.header("Last-Modified") { fields[.lastModified] = value }
            if let value = answer.header("ETag") { fields[.eTag] = value }
            return Response(
                status: .init(code: answer.status),
                headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(data: bytes))
            )
        }
        router.get("**", use: forward)
        router.post("**", use: forward)
        router.delete("**", use: forward)
        return Application(router: router)
    }

    /// The package with its order cancelled in order.json, the manifest and signature untouched.
    static func tamper(_ package: Data) throws -> Data {
        let entries = try ZipArchive.read(package).map { entry -> ZipArchive.Entry in
            guard entry.path == "order.json", var order = try? OrderDocument(data: entry.data) else { return entry }
            order["status"] = .string("cancelled")
            return ZipArchive.Entry(path: entry.path, data: order.serialized)
        }
        return try ZipArchive.write(entries, modified: Date())
    }
}

/// A flag one task sets and others read.
final class Switch: Sendable {
    private let state = Atomic<Bool>(false)

    var isOn: Bool { state.load(ordering: .relaxed) }

    func turnOn() { state.store(true, ordering: .relaxed) }
}
