import Foundation
import Logging
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// What the HTTP layer asks of the service: orders written, read and packaged, with every rule of the merchant
/// API applied here, not in the routes.
public struct OrderService: Sendable {
    public let store: SQLiteStore
    public let orderTypes: [String: OrderType]
    /// Each order's `webServiceURL`.
    public let webServiceURL: String
    let now: @Sendable () -> Date
    /// Called after a write queued pushes, so the push worker need not wait for its next look.
    let pushesQueued: @Sendable () -> Void
    /// Counts package builds and cache hits, among the rest.
    public let metrics: ServiceMetrics

    /// Fields the service sets; a merchant may send them only unchanged.
    static let managedFields = ["authenticationToken", "webServiceURL", "createdAt", "updatedAt"]

    public init(store: SQLiteStore, orderTypes: [OrderType], webServiceURL: String,
                now: @escaping @Sendable () -> Date = Date.init,
                pushesQueued: @escaping @Sendable () -> Void = {}, metrics: ServiceMetrics = ServiceMetrics()) {
        self.store = store
        self.metrics = metrics
        self.pushesQueued = pushesQueued
        self.orderTypes = Dictionary(uniqueKeysWithValues: orderTypes.map { ($0.identifier, $0) })
        self.webServiceURL = webServiceURL
        self.now = now
    }

    /// Creates an order from a merchant's body: order.json fields plus optional `assets` {path: base64}.
    public func create(_ body: JSONValue) async throws -> StoredOrder {
        guard var fields = body.objectValue else { throw APIError(.badRequest, "the body must be a JSON object") }
        let assets = try Self.decodeAssets(fields.removeValue(forKey: "assets"))
        var problems: [OrderProblem] = []
        for field in Self.managedFields where fields[field] != nil {
            problems.append(OrderProblem(path: field, message: "is set by the service; leave it out"))
        }
        let type: OrderType
        switch fields["orderTypeIdentifier"] {
        case nil:
            guard orderTypes.count == 1, let only = orderTypes.values.first else {
                throw APIError(.badRequest, "the order is not valid", problems: problems + [OrderProblem(
                    path: "orderTypeIdentifier", message: "is required: this service signs more than one order type")])
            }
            type = only
        case .string(let identifier)?:
            guard let configured = orderTypes[identifier] else {
                throw APIError(.badRequest, "the order is not valid", problems: problems + [OrderProblem(
                    path: "orderTypeIdentifier",
                    message: "\"\(identifier)\" is not an order type this service signs (\(orderTypes.keys.sorted().joined(separator: ", ")))")])
            }
            type = configured
        case let other?:
            throw APIError(.badRequest, "the order is not valid", problems: problems + [OrderProblem(
                path: "orderTypeIdentifier", message: "must be a string, not \(other.typeName)")])
        }
        if let id = fields["orderIdentifier"], id.stringValue == nil {
            problems.append(OrderProblem(path: "orderIdentifier", message: "must be a string, not \(id.typeName)"))
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the order is not valid", problems: problems) }

        var document = OrderDocument(fields: fields)
        document["orderTypeIdentifier"] = .string(type.identifier)
        if document["orderIdentifier"] == nil { document["orderIdentifier"] = .string(Random.identifier()) }
        if document["schemaVersion"] == nil { document["schemaVersion"] = .int(1) }
        if document["orderType"] == nil { document["orderType"] = .string("ecommerce") }
        let token = Random.token()
        document["authenticationToken"] = .string(token)
        document["webServiceURL"] = .string(webServiceURL)
        if let defaults = type.template.defaults { document = document.withDefaults(defaults) }
        if let id = document.orderIdentifier, let problem = Identifier.problem(with: id) {
            throw APIError(.badRequest, "the order is not valid",
                           problems: [OrderProblem(path: "orderIdentifier", message: problem)])
        }
        do {
            return try await store.createOrder(document, authenticationToken: token, assets: assets, now: now()) {
                order, assets in try build(type, order, assets)
            }
        } catch StoreError.orderExists {
            throw APIError(.conflict, "an order \(document.orderIdentifier ?? "") of type \(type.identifier) already exists")
        } catch let error as PackageError {
            throw Self.apiError(error)
        }
    }

    /// Replaces an order with `body` (PUT): identifiers, token, service URL and creation time are kept.
    public func replace(type: String, id: String, body: JSONValue) async throws -> (StoredOrder, Int) {
        guard var fields = body.objectValue else { throw APIError(.badRequest, "the body must be a JSON object") }
        let newAssets = try fields.removeValue(forKey: "assets").map { try Self.decodeAssets($0) }
        return try await update(type: type, id: id) { [fields] _, assets in
            (OrderDocument(fields: fields), newAssets ?? assets)
        }
    }

    /// Changes an order with a JSON merge patch (PATCH, RFC 7396); `assets` in the patch merges into the
    /// order's files, a null removing one.
    public func patch(type: String, id: String, patch: JSONValue) async throws -> (StoredOrder, Int) {
        guard var changes = patch.objectValue else { throw APIError(.badRequest, "a merge patch must be a JSON object") }
        let assetChanges = changes.removeValue(forKey: "assets")
        var removed: Set<String> = []
        var added: [String: Data] = [:]
        if let assetChanges {
            guard let members = assetChanges.objectValue else {
                throw APIError(.badRequest, "assets must be an object of path to base64 data")
            }
            for (path, value) in members where value == .null { removed.insert(path) }
            added = try Self.decodeAssets(.object(members.filter { $0.value != .null }))
        }
        return try await update(type: type, id: id) { [changes, removed, added] current, assets in
            var merged = assets.filter { !removed.contains($0.key) }
            merged.merge(added) { $1 }
            return (OrderDocument(fields: current.json.merging(patch: .object(changes)).objectValue ?? [:]), merged)
        }
    }

    private func update(
        type: String, id: String,
        change: @escaping @Sendable (OrderDocument, [String: Data]) throws -> (OrderDocument, [String: Data])
    ) async throws -> (StoredOrder, Int) {
        guard let orderType = orderTypes[type] else { throw APIError.orderNotFound }
        do {
            let result = try await store.updateOrder(type: type, id: id, now: now(), change: { currentDocument, assets in
                var (document, newAssets) = try change(currentDocument, assets)
                var problems: [OrderProblem] = []
                // The merchant may resend the fields the service owns, but not change them.
                for field in ["orderTypeIdentifier", "orderIdentifier", "createdAt"] + Self.managedFields
                where field != "updatedAt" {
                    if let sent = document[field], sent != currentDocument[field] {
                        problems.append(OrderProblem(path: field, message: "is set by the service and cannot change"))
                    }
                    document[field] = currentDocument[field]
                }
                guard problems.isEmpty else { throw APIError(.badRequest, "the order is not valid", problems: problems) }
                if let defaults = orderType.template.defaults { document = document.withDefaults(defaults) }
                return (document, newAssets)
            }, package: { order, assets in try build(orderType, order, assets) })
            if result.pushesQueued > 0 { pushesQueued() }
            return (result.order, result.pushesQueued)
        } catch StoreError.orderNotFound {
            throw APIError.orderNotFound
        } catch let error as PackageError {
            throw Self.apiError(error)
        }
    }

    /// The signed package of the order's current version, built and stored if the stored one is missing.
    public func package(type: String, id: String, head: OrderHead) async throws -> Data {
        if let data = try await store.package(type: type, id: id, version: head.version) {
            metrics.packageCacheHit()
            return data
        }
        guard let orderType = orderTypes[type], let order = try await store.order(type: type, id: id) else {
            throw APIError.orderNotFound
        }
        let data = try build(orderType, order.document, try await store.assets(type: type, id: id))
        try await store.savePackage(type: type, id: id, version: order.version, data: data)
        return data
    }

    /// Builds and signs a package, counting it.
    func build(_ type: OrderType, _ order: OrderDocument, _ assets: [String: Data]) throws -> Data {
        metrics.packageBuilt()
        return try type.package(order, assets: assets)
    }

    static func decodeAssets(_ value: JSONValue?) throws -> [String: Data] {
        guard let value else { return [:] }
        guard let members = value.objectValue else {
            throw APIError(.badRequest, "assets must be an object of path to base64 data")
        }
        var assets: [String: Data] = [:]
        var problems: [OrderProblem] = []
        for (path, encoded) in members.sorted(by: { $0.key < $1.key }) {
            guard let text = encoded.stringValue, let data = Data(base64Encoded: text) else {
                problems.append(OrderProblem(path: "assets.\(path)", message: "must be base64 text"))
                continue
            }
            if let problem = PackagePath.problem(with: path) {
                problems.append(OrderProblem(path: "assets.\(path)", message: problem))
                continue
            }
            assets[path] = data
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the assets are not valid", problems: problems) }
        return assets
    }

    static func apiError(_ error: PackageError) -> APIError {
        switch error {
        case .invalidOrder(let problems): APIError(.badRequest, "the order is not valid", problems: problems)
        case .invalidAsset(let path, let problem):
            APIError(.badRequest, "the assets are not valid", problems: [OrderProblem(path: "assets.\(path)", message: problem)])
        case .tooLarge: APIError(.contentTooLarge, "\(error)")
        case .template, .signingIdentity, .failed: APIError(.internalServerError, "the package could not be built")
        }
    }
}

/// Unguessable identifiers and tokens from the system's secure random source.
enum Random {
    private static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }

    /// A new order identifier: 128 random bits.
    static func identifier() -> String { hex(bytes: 16) }
    /// A new authentication token: 256 random bits.
    static func token() -> String { hex(bytes: 32) }
}
