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

    let client: DeviceHTTPClient
    let trustedRoots: [Certificate]
    let allowsHTTPWebService: Bool
    let log = Transcript()
    let pushes: AsyncStream<String>.Continuation
    let connections = Mutex<[Task<Void, Never>]>([])
    var held: [OrderKey: DeviceOrder] = [:]
    var tags: [ServiceKey: String] = [:]

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
}
