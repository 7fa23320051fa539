import Foundation
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

/// A Wallet Orders web service written for the tests: the device API done right, on real signed packages, except for
/// one switchable fault. Its state lives here; `FaultyWebService+Routes` puts it behind a real HTTP server.
actor FaultyWebService {
    /// What a handler answers.
    struct Reply: Sendable {
        var status: Int
        var contentType: String?
        var lastModified: String?
        var body = Data()
    }

    /// Where the service pushes to: the kit's local APNs.
    struct PushTarget: Sendable {
        let port: Int
        let caFile: String
    }

    /// How the service authenticates to APNs.
    enum PushCredential: Sendable {
        /// An ES256 provider token made with the order type's APNs key.
        case token
        /// A TLS client certificate: the Order Type ID certificate, or another order type's.
        case certificate(ownType: Bool)
    }

    let fault: Fault?
    let credential: PushCredential
    let orderIdentifier = "A-1001"
    let token = "conformance-token-\(UUID().uuidString.prefix(8))"
    let chain = TestChain.shared
    private(set) var base = ""
    private var pushTarget: PushTarget?
    private(set) var version = 0
    private(set) var updatedAt: Date
    private var changeTag = 1
    private var registrations: [String: String] = [:]
    /// Every device that ever registered: the unknown-device fault answers 404 for the others only.
    private var devices: Set<String> = []
    var packages: [Int: Data] = [:]
    let template: OrderTemplate

    init(fault: Fault?, credential: PushCredential = .token) throws {
        self.fault = fault
        self.credential = credential
        // A day ago, to the second; an hour ahead for the fault of a service whose clock runs ahead.
        let offset: TimeInterval = fault == .fetchLastModifiedNotAfterDate ? 3_600 : -86_400
        updatedAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + offset).rounded(.down))
        template = try OrderTemplate(directory: SampleOrder.templateFolder)
    }

    var orderType: String { TestChain.orderType }

    /// Whether the service speaks https (all but the plain-http fault).
    nonisolated var usesTLS: Bool { fault != .packageHTTPS }

    /// Learns where it listens and where to push, once both are known.
    func start(base: String, pushTarget: PushTarget) {
        self.base = base
        self.pushTarget = pushTarget
    }

    /// The orderDetails Apple Pay would hand Wallet.
    var orderDetailsJSON: Data {
        JSONValue.object([
            "orderTypeIdentifier": .string(orderType), "orderIdentifier": .string(orderIdentifier),
            "webServiceURL": .string(base), "authenticationToken": .string(token),
        ]).serialized()
    }

    // MARK: The device API

    func fetch(type: String, id: String, authorization: String?, ifModifiedSince: String?, head: Bool) throws -> Reply {
        guard type == orderType, id == orderIdentifier else { return Reply(status: fault == .fetchUnknownOrder ? 404 : 401) }
        switch Self.token(authorization) {
        case nil where fault != .fetchNoToken: return Reply(status: 401)
        case let given? where given != token && fault != .fetchWrongToken: return Reply(status: 401)
        default: break
        }
        if head, fault == .fetchHead { return Reply(status: 405) }
        if fault == .fetchStatus { return Reply(status: 500, body: Data("boom".utf8)) }
        let lastModified = fault == .fetchLastModifiedStable ? Date().addingTimeInterval(-1) : updatedAt
        if fault != .fetchNotModified, let since = ifModifiedSince.flatMap(Self.httpDate), since >= updatedAt {
            return Reply(status: 304)
        }
        var reply = Reply(status: 200)
        reply.contentType = fault == .fetchContentType ? "application/zip" : PackageBuilder.contentType
        if fault != .fetchLastModified { reply.lastModified = Self.httpDate(lastModified) }
        if !head { reply.body = try package() }
        return reply
    }

    func register(device: String, type: String, id: String, authorization: String?, body: Data) -> Reply {
        guard type == orderType, id == orderIdentifier else { return Reply(status: 401) }
        guard Self.token(authorization) == token || fault == .registerWrongToken else { return Reply(status: 401) }
        guard let pushToken = (try? JSONValue.parse(body))?["pushToken"]?.stringValue else { return Reply(status: 400) }
        let existed = registrations[device] != nil
        registrations[device] = pushToken
        devices.insert(device)
        if existed { return Reply(status: fault == .registerAgain ? 201 : 200) }
        return Reply(status: fault == .registerCreated ? 200 : 201)
    }

    func unregister(device: String, type: String, id: String, authorization: String?) -> Reply {
        guard type == orderType, id == orderIdentifier, Self.token(authorization) == token else { return Reply(status: 401) }
        if fault != .unregisterListing { registrations.removeValue(forKey: device) }
        return Reply(status: fault == .unregisterOK ? 204 : 200)
    }

    func listing(device: String, type: String, since: String?, authorization: String?) -> Reply {
        if fault == .listingNoAuthorization, authorization == nil { return Reply(status: 401) }
        if fault == .listingNoTag, since == nil { return Reply(status: 500) }
        if fault == .listingEmptyTag, since == "" { return Reply(status: 500) }
        guard registrations[device] != nil, type == orderType else {
            return Reply(status: fault == .listingUnknownDevice && !devices.contains(device) ? 404 : 204)
        }
        let changed = since.flatMap { Int($0) }.map { changeTag > $0 } ?? true
        guard changed || fault == .listingOwnTag else { return Reply(status: 204) }
        let lastModified: JSONValue = fault == .listingLastModifiedString ? .int(changeTag) : .string(String(changeTag))
        let body = JSONValue.object(["orderIdentifiers": .array([.string(orderIdentifier)]), "lastModified": lastModified])
        return Reply(status: 200, contentType: "application/json", body: body.serialized())
    }

    func log(_ body: Data) -> Reply {
        guard fault != .logAccepts else { return Reply(status: 404) }
        return Reply(status: (try? JSONValue.parse(body))?["logs"] == nil ? 400 : 200)
    }

    // MARK: What the merchant does

    /// Changes the order: a new version, a new tag, a push to every registered device.
    func update() async -> Reply {
        if fault != .updateFetchNewer {
            version += 1
            updatedAt = max(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), updatedAt + 1)
        }
        if fault != .updateListed { changeTag += 1 }
        if fault != .pushArrives { await pushToEveryDevice() }
        return Reply(status: 200)
    }

    /// "Updates" the order with what it holds: nothing changes, unless a fault says otherwise.
    func unchangedUpdate() async -> Reply {
        if fault == .updateUnchangedNotListed { changeTag += 1 }
        if fault == .updateUnchangedNotPushed { await pushToEveryDevice() }
        return Reply(status: 200)
    }

    // MARK: Pushes

    /// Pushes to each registered token with `curl` over HTTP/2 and TLS, one after the other.
    private func pushToEveryDevice() async {
        guard let pushTarget else { return }
        for pushToken in Set(registrations.values).sorted() {
            _ = try? await push(to: pushToken, target: pushTarget)
        }
    }

    private func push(to pushToken: String, target: PushTarget) async throws -> Command.Result {
        let key = fault == .pushAuthentication ? chain.strangerAPNSKey : chain.apnsKey
        let providerToken = try ProviderToken(key: key, keyID: TestChain.apnsKeyID, teamID: TestChain.teamID).current()
        let topic = fault == .pushTopic ? "com.example.shop.app" : orderType
        let body = fault == .pushPayload ? #"{"orderIdentifier":"A-1001"}"# : APNSRequest.body
        let type = fault == .pushNoAlert ? "alert" : APNSRequest.pushType
        var authentication = ["-H", "authorization: bearer \(providerToken)"]
        if case .certificate(let ownType) = credential {
            let name = ownType ? "signer" : "other-signer"
            authentication = ["--cert", chain.folder.path("\(name)-chain.pem"), "--key", chain.folder.path("\(name).key")]
        }
        return try await Command.run(
            "curl",
            [
                "-s", "-o", "/dev/null", "--http2", "--max-time", "30", "--cacert", target.caFile, "-X", "POST",
                "-H", "apns-topic: \(topic)", "-H", "apns-push-type: \(type)", "-H", "apns-priority: \(APNSRequest.priority)",
                "--data-binary", body,
            ] + authentication + ["https://127.0.0.1:\(target.port)\(APNSRequest.pathPrefix)\(pushToken)"]
        )
    }

    // MARK: Helpers

    static func token(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("AppleOrder ") else { return nil }
        return String(authorization.dropFirst("AppleOrder ".count))
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
