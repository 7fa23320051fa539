import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// A simulated Apple Wallet device: it adds orders, registers for their updates with a push token of its own,
/// answers each push as Wallet does (which orders changed since its tag, then a conditional fetch of each), checks
/// every package as Wallet would before keeping it, and posts to the web service's `/v1/log` when something is
/// wrong. Every step goes into its transcript.
///
/// Pushes are handled one at a time, in the order they arrive; `connect(to:)` takes them from a local APNs.
public actor SimulatedDevice {
    /// The device library identifier sent in registration paths.
    public nonisolated let identifier: String
    /// The APNs push token the device registers with (hex).
    public nonisolated let pushToken: String

    private let client: DeviceHTTPClient
    private let trustedRoots: [Certificate]
    private let allowsHTTPWebService: Bool
    private let log = Transcript()
    private let pushes: AsyncStream<String>.Continuation
    private let connections = Mutex<[Task<Void, Never>]>([])
    private var held: [OrderKey: DeviceOrder] = [:]
    private var tags: [ServiceKey: String] = [:]

    /// A device that trusts packages signed by a chain up to one of `trustedRoots` (Apple's root for real orders,
    /// the development root for local ones). Identifier and push token are random unless given.
    /// `allowsHTTPWebService` accepts orders whose `webServiceURL` is plain http, which only a development server
    /// writes and Wallet refuses. `client` carries its requests (by default, one trusting the system's roots).
    public init(
        trustedRoots: [Certificate],
        identifier: String? = nil,
        pushToken: String? = nil,
        allowsHTTPWebService: Bool = false,
        client: DeviceHTTPClient? = nil
    ) throws {
        self.identifier = identifier ?? Self.randomHex(bytes: 16)
        self.pushToken = (pushToken ?? Self.randomHex(bytes: 32)).lowercased()
        self.trustedRoots = trustedRoots
        self.allowsHTTPWebService = allowsHTTPWebService
        self.client = try client ?? DeviceHTTPClient()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        pushes = continuation
        Task { [weak self] in
            for await topic in stream {
                await self?.handlePush(topic: topic)
            }
        }
    }

    /// A device trusting the PEM certificates in `trustedRootsPEM` (a development chain's `root-ca.pem`, say).
    public init(
        trustedRootsPEM: Data,
        identifier: String? = nil,
        pushToken: String? = nil,
        allowsHTTPWebService: Bool = false,
        client: DeviceHTTPClient? = nil
    ) throws {
        let roots = Certificate.allPEM(trustedRootsPEM)
        guard !roots.isEmpty else { throw DeviceError.badTrustedRoots("no PEM certificate to trust") }
        try self.init(
            trustedRoots: roots,
            identifier: identifier,
            pushToken: pushToken,
            allowsHTTPWebService: allowsHTTPWebService,
            client: client
        )
    }

    deinit {
        pushes.finish()
        log.finish()
    }

    // MARK: What the device holds

    /// Every step so far, in order.
    public nonisolated var transcript: [DeviceEvent] { log.events }

    /// The steps from now on, as they happen (with `replay`, the ones so far first); ends when the device stops.
    public nonisolated func events(replay: Bool = false) -> AsyncStream<DeviceEvent> {
        log.watch(replay: replay)
    }

    /// The orders on the device, by type and identifier.
    public var orders: [DeviceOrder] {
        held.values.sorted { ($0.orderTypeIdentifier, $0.orderIdentifier) < ($1.orderTypeIdentifier, $1.orderIdentifier) }
    }

    /// The order `orderIdentifier` of type `orderTypeIdentifier`, when the device holds it.
    public func order(_ orderTypeIdentifier: String, _ orderIdentifier: String) -> DeviceOrder? {
        held[OrderKey(type: orderTypeIdentifier, id: orderIdentifier)]
    }

    /// The `lastModified` tag the device sends as `ordersModifiedSince` to `webServiceURL` for `orderTypeIdentifier`;
    /// nil before the first listing.
    public func ordersModifiedSince(webServiceURL: String, orderTypeIdentifier: String) -> String? {
        tags[ServiceKey(webServiceURL: Self.base(webServiceURL), type: orderTypeIdentifier)]
    }

    // MARK: Adding and removing orders

    /// Adds the order Apple Pay's orderDetails name: fetches its package from the web service, checks it, keeps
    /// it, and registers for its updates. Throws when the package cannot be had or is refused (the order is then
    /// not added); a failed registration leaves the order on the device, not registered, as Wallet shows it.
    @discardableResult
    public func add(_ details: OrderDetails) async throws -> DeviceOrder {
        let key = OrderKey(type: details.orderTypeIdentifier, id: details.orderIdentifier)
        let base = Self.base(details.webServiceURL)
        let url = Self.orderURL(base, key)
        let response = try await request(
            .fetch,
            "GET",
            url,
            headers: [Self.authorization(details.authenticationToken)],
            describe: Self.describeFetch
        )
        guard response.status == 200 else {
            await postLog(Self.fetchTask(key, base, since: nil, "Unexpected response code \(response.status)"), to: base)
            throw DeviceError.unexpectedStatus(url: url, status: response.status)
        }
        let (document, report) = try await accept(response.body, for: key, webServiceURL: base, since: nil)
        held[key] = DeviceOrder(
            orderTypeIdentifier: key.type,
            orderIdentifier: key.id,
            webServiceURL: base,
            package: response.body,
            order: document,
            warnings: report.warnings,
            lastModified: response.header("Last-Modified"),
            etag: response.header("ETag"),
            isRegistered: false,
            versions: 1,
            authenticationToken: document.authenticationToken ?? details.authenticationToken
        )
        log.append(DeviceEvent(kind: .added, detail: "\(key.type) / \(key.id) from orderDetails"))
        await register(key)
        return try order(key)
    }

    /// Adds an order from its `.order` file, as opening one does: checks it, keeps it, and registers for updates
    /// at its `webServiceURL` (or at `webServiceURL` when given) if it has one. Throws when the package is refused.
    @discardableResult
    public func add(package: Data, webServiceURL: String? = nil) async throws -> DeviceOrder {
        let report = PackageVerifier.verify(package, trustedRoots: trustedRoots, allowHTTPWebService: allowsHTTPWebService)
        let document = Self.orderDocument(in: package)
        let base = (webServiceURL ?? document?.webServiceURL).map(Self.base)
        guard report.isValid, let document, let type = document.orderTypeIdentifier, let id = document.orderIdentifier else {
            let problems = report.problems.isEmpty ? ["order.json cannot be read"] : report.problems
            log.append(DeviceEvent(kind: .refused, detail: problems.joined(separator: "; ")))
            if let base, let type = report.orderTypeIdentifier, let id = report.orderIdentifier {
                await postLog(
                    Self.addTask(
                        OrderKey(type: type, id: id),
                        base,
                        "Order package is invalid: \(problems.joined(separator: "; "))"
                    ),
                    to: base
                )
            }
            throw DeviceError.refusedPackage(problems)
        }
        let key = OrderKey(type: type, id: id)
        log.append(DeviceEvent(kind: .verified, detail: Self.describe(document, report)))
        held[key] = DeviceOrder(
            orderTypeIdentifier: type,
            orderIdentifier: id,
            webServiceURL: base,
            package: package,
            order: document,
            warnings: report.warnings,
            lastModified: nil,
            etag: nil,
            isRegistered: false,
            versions: 1,
            authenticationToken: document.authenticationToken
        )
        log.append(DeviceEvent(kind: .added, detail: "\(type) / \(id) from a package"))
        if base != nil, document.authenticationToken != nil { await register(key) }
        return try order(key)
    }

    /// The order the device holds under `key`.
    private func order(_ key: OrderKey) throws -> DeviceOrder {
        guard let order = held[key] else {
            throw DeviceError.unknownOrder(orderTypeIdentifier: key.type, orderIdentifier: key.id)
        }
        return order
    }

    /// Downloads a `.order` file from `url` (a "Track with Wallet" link) and adds it as `add(package:webServiceURL:)`.
    @discardableResult
    public func download(_ url: String, webServiceURL: String? = nil) async throws -> DeviceOrder {
        let response = try await request(.download, "GET", url, describe: Self.describeFetch)
        guard response.status == 200 else { throw DeviceError.unexpectedStatus(url: url, status: response.status) }
        return try await add(package: response.body, webServiceURL: webServiceURL)
    }

    /// Removes the order from the device and unregisters it, as deleting it from Wallet does. The order is gone
    /// from the device either way; throws when the web service did not answer the unregistration with 200.
    public func remove(_ orderTypeIdentifier: String, _ orderIdentifier: String) async throws {
        let key = OrderKey(type: orderTypeIdentifier, id: orderIdentifier)
        guard let order = held.removeValue(forKey: key) else {
            throw DeviceError.unknownOrder(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier)
        }
        log.append(DeviceEvent(kind: .removed, detail: "\(key.type) / \(key.id)"))
        guard order.isRegistered, let base = order.webServiceURL else { return }
        let url = registrationURL(base, key)
        let response = try await request(
            .unregister,
            "DELETE",
            url,
            headers: order.authenticationToken.map { [Self.authorization($0)] } ?? []
        )
        guard response.status == 200 else {
            await postLog(Self.task("Unregister", key, base, "Unexpected response code \(response.status)"), to: base)
            throw DeviceError.unexpectedStatus(url: url, status: response.status)
        }
    }

    // MARK: Pushes

    /// Hands the device a push for its token on `topic` (an order type identifier). It returns at once: the
    /// device then asks each web service it holds orders of that type from which changed, and fetches them.
    public nonisolated func receivePush(topic: String) {
        pushes.yield(topic)
    }

    /// Stops taking pushes and ends every live watcher's stream.
    public nonisolated func stop() {
        pushes.finish()
        for connection in connections.withLock({ $0 }) { connection.cancel() }
        log.finish()
    }

    /// Keeps `task`, which feeds the device pushes, to cancel it when the device stops.
    nonisolated func keep(_ task: Task<Void, Never>) {
        connections.withLock { $0.append(task) }
    }

    private func handlePush(topic: String) async {
        let services = Set(
            held.values.filter { $0.orderTypeIdentifier == topic && $0.isRegistered }
                .compactMap(\.webServiceURL)
        ).sorted()
        log.append(
            DeviceEvent(
                kind: .push,
                detail: services.isEmpty
                    ? "topic \(topic): the device holds no registered order of this type" : "topic \(topic)"
            )
        )
        for base in services {
            await refresh(type: topic, webServiceURL: base)
        }
    }

    /// Asks `webServiceURL` which orders of `type` changed since the device's tag, and fetches those it holds.
    private func refresh(type: String, webServiceURL base: String) async {
        let service = ServiceKey(webServiceURL: base, type: type)
        let since = tags[service]
        var url = "\(base)/v1/devices/\(Self.segment(identifier))/registrations/\(Self.segment(type))"
        if let since { url += "?ordersModifiedSince=\(Self.queryValue(since))" }
        let listed = { (message: String) in
            Self.task("Get updated orders", nil, base, message, extra: "order type \(type), ordersModifiedSince \(since ?? "(null)")")
        }
        guard let response = try? await request(.list, "GET", url, describe: Self.describeListing) else { return }
        switch response.status {
        case 204:
            return
        case 200:
            let json = try? JSONValue.parse(response.body)
            guard let identifiers = json?["orderIdentifiers"]?.arrayValue?.compactMap(\.stringValue),
                let lastModified = json?["lastModified"]?.stringValue
            else {
                log.append(DeviceEvent(kind: .refused, detail: "the listing is not {\"orderIdentifiers\": [...], \"lastModified\": \"...\"}"))
                await postLog(listed("Server response was malformed"), to: base)
                return
            }
            var complete = true
            for id in identifiers where held[OrderKey(type: type, id: id)] != nil {
                if await !update(OrderKey(type: type, id: id)) { complete = false }
            }
            // A fetch that got no answer is asked about again at the next push: the tag stays where it was.
            if complete { tags[service] = lastModified }
        default:
            await postLog(listed("Unexpected response code \(response.status)"), to: base)
        }
    }

    /// Fetches a newer version of `key` if there is one; answers false when it should be asked about again.
    private func update(_ key: OrderKey) async -> Bool {
        guard let current = held[key], let base = current.webServiceURL else { return true }
        var headers = current.authenticationToken.map { [Self.authorization($0)] } ?? []
        if let lastModified = current.lastModified { headers.append(.init("If-Modified-Since", lastModified)) }
        if let etag = current.etag { headers.append(.init("If-None-Match", etag)) }
        guard
            let response = try? await request(
                .fetch,
                "GET",
                Self.orderURL(base, key),
                headers: headers,
                describe: Self.describeFetch
            )
        else { return false }
        switch response.status {
        case 304:
            return true
        case 200:
            // A refused package is not asked for again: its version stays refused until the next change.
            guard
                let accepted = try? await accept(
                    response.body,
                    for: key,
                    webServiceURL: base,
                    since: current.lastModified,
                    heldSince: current.updatedAt
                )
            else { return true }
            let (document, report) = accepted
            var order = current
            order.package = response.body
            order.order = document
            order.warnings = report.warnings
            order.lastModified = response.header("Last-Modified")
            order.etag = response.header("ETag")
            order.versions += 1
            if let token = document.authenticationToken { order.authenticationToken = token }
            held[key] = order
            return true
        case 500...:
            await postLog(Self.fetchTask(key, base, since: current.lastModified, "Unexpected response code \(response.status)"), to: base)
            return false
        default:
            await postLog(Self.fetchTask(key, base, since: current.lastModified, "Unexpected response code \(response.status)"), to: base)
            return true
        }
    }

    // MARK: Steps

    /// Registers the device for `key`'s updates with its push token.
    private func register(_ key: OrderKey) async {
        guard var order = held[key], let base = order.webServiceURL, let token = order.authenticationToken else { return }
        let body = JSONValue.object(["pushToken": .string(pushToken)]).serialized()
        guard
            let response = try? await request(
                .register,
                "POST",
                registrationURL(base, key),
                headers: [Self.authorization(token), .init("Content-Type", "application/json")],
                body: body,
                describe: { $0.status == 201 ? "registered" : $0.status == 200 ? "already registered" : nil }
            )
        else { return }
        order.isRegistered = response.status == 201 || response.status == 200
        held[key] = order
        if !order.isRegistered {
            await postLog(Self.task("Register", key, base, "Unexpected response code \(response.status)"), to: base)
        }
    }

    /// Checks a fetched package as Wallet does; refuses it (with a transcript entry and a log post) when it fails.
    /// `heldSince` is the `updatedAt` of the version the device holds: an older one is refused, as Wallet keeps the
    /// newest version.
    private func accept(
        _ package: Data,
        for key: OrderKey,
        webServiceURL base: String,
        since: String?,
        heldSince: Date? = nil
    ) async throws -> (OrderDocument, PackageReport) {
        let report = PackageVerifier.verify(package, trustedRoots: trustedRoots, allowHTTPWebService: allowsHTTPWebService)
        var problems = report.problems
        let document = Self.orderDocument(in: package)
        if let document, report.orderTypeIdentifier != nil,
            document.orderTypeIdentifier != key.type || document.orderIdentifier != key.id
        {
            problems.append(
                "the package holds order \(document.orderTypeIdentifier ?? "?") / "
                    + "\(document.orderIdentifier ?? "?"), not the one asked for"
            )
        }
        if let heldSince, let fetched = document?.updatedAt, fetched < heldSince {
            problems.append(
                "its updatedAt \(RFC3339.format(fetched)) is older than the version the device holds "
                    + "(\(RFC3339.format(heldSince)))"
            )
        }
        guard problems.isEmpty, let document else {
            if problems.isEmpty { problems = ["order.json cannot be read"] }
            log.append(DeviceEvent(kind: .refused, detail: problems.joined(separator: "; ")))
            await postLog(
                Self.fetchTask(key, base, since: since, "Order package is invalid: \(problems.joined(separator: "; "))"),
                to: base
            )
            throw DeviceError.refusedPackage(problems)
        }
        log.append(DeviceEvent(kind: .verified, detail: Self.describe(document, report)))
        return (document, report)
    }

    /// Posts one message to `{webServiceURL}/v1/log`, as Wallet reports what went wrong with a web service.
    private func postLog(_ message: String, to base: String) async {
        let line = "[\(RFC3339.format(Date()))] \(message)"
        let body = JSONValue.object(["logs": .array([.string(line)])]).serialized()
        _ = try? await request(
            .log,
            "POST",
            "\(base)/v1/log",
            headers: [.init("Content-Type", "application/json")],
            body: body,
            describe: { _ in message }
        )
    }

    /// Sends one request and records it; throws `DeviceError.unreachable` when no answer came.
    private func request(
        _ kind: DeviceEvent.Kind,
        _ method: String,
        _ url: String,
        headers: [DeviceHTTPClient.HeaderField] = [],
        body: Data? = nil,
        describe: (DeviceHTTPClient.Response) -> String? = { _ in nil }
    ) async throws -> DeviceHTTPClient.Response {
        let start = ContinuousClock.now
        let time = Date()
        do {
            let response = try await client.send(method, url, headers: headers, body: body)
            log.append(
                DeviceEvent(
                    kind: kind,
                    time: time,
                    method: method,
                    url: url,
                    status: response.status,
                    milliseconds: Self.milliseconds(since: start),
                    detail: describe(response)
                )
            )
            return response
        } catch {
            log.append(
                DeviceEvent(
                    kind: kind,
                    time: time,
                    method: method,
                    url: url,
                    status: nil,
                    milliseconds: Self.milliseconds(since: start),
                    detail: "\(error)"
                )
            )
            throw DeviceError.unreachable(url: url, reason: "\(error)")
        }
    }
}
