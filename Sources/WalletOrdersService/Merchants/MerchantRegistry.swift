import Foundation
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// What operators do to merchants: add them, change their names, order types and limits, suspend and resume them,
/// set their templates, make and revoke their keys. The command line and the operator's HTTP API both come here.
/// Every change made here reaches the service's merchant directory before the call returns, so that the next
/// request already sees it; other instances hear of it from the store.
public struct MerchantRegistry: Sendable {
    let merchantRecords: any MerchantStorage
    let partnerRecords: any PartnerStorage
    /// The directory that reads again after each change; nil when no service runs beside the registry.
    let directory: MerchantDirectory?
    /// The order types the service signs, with their templates: a merchant's template is laid over them.
    let orderTypes: [String: OrderTemplate]
    let now: @Sendable () -> Date

    /// A registry over a store's merchants and partners for a service signing `orderTypes` (identifier to template).
    public init(
        merchants: any MerchantStorage,
        partners: any PartnerStorage,
        orderTypes: [String: OrderTemplate],
        now: @escaping @Sendable () -> Date = Date.init,
        directory: MerchantDirectory? = nil
    ) {
        merchantRecords = merchants
        partnerRecords = partners
        self.directory = directory
        self.orderTypes = orderTypes
        self.now = now
    }

    /// A registry for `service`'s store and order types.
    public init(service: OrderService) {
        self.init(
            merchants: service.store.merchants,
            partners: service.store.partners,
            orderTypes: service.orderTypes.mapValues(\.template),
            now: service.now,
            directory: service.merchants
        )
    }

    /// `value`, once the directory has read the change that made it.
    func reloaded<Value>(_ value: Value) async throws -> Value {
        try await directory?.reload()
        return value
    }

    /// Adds a merchant.
    public func add(
        slug: String,
        displayName: String,
        orderTypes: [String] = [],
        limits: MerchantLimits = MerchantLimits(),
        stalledParcelAfterHours: Int? = nil
    )
        async throws -> Merchant
    {
        var problems = Self.slugProblems(slug)
        problems += nameProblems(displayName) + typeProblems(orderTypes) + Self.limitProblems(limits)
        problems += Self.stallProblems(stalledParcelAfterHours)
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems) }
        do {
            var merchant = try await merchantRecords.createMerchant(
                slug: slug,
                displayName: displayName,
                orderTypes: orderTypes,
                limits: limits
            )
            if let stalledParcelAfterHours {
                let change = MerchantChange(stalledParcelAfterHours: .some(stalledParcelAfterHours))
                merchant = try await merchantRecords.updateMerchant(slug: slug, change) ?? merchant
            }
            return try await reloaded(merchant)
        } catch StoreError.merchantExists {
            throw MerchantRegistryError.exists(slug)
        }
    }

    /// Every merchant.
    public func list() async throws -> [Merchant] {
        try await merchantRecords.merchants()
    }

    /// The merchant `slug`.
    public func merchant(_ slug: String) async throws -> Merchant {
        guard let merchant = try await merchantRecords.merchants().first(where: { $0.slug == slug }) else {
            throw MerchantRegistryError.notFound(slug)
        }
        return merchant
    }

    /// Changes what `change` names.
    public func update(_ slug: String, _ change: MerchantChange) async throws -> Merchant {
        var problems = change.displayName.map(nameProblems) ?? []
        problems += change.orderTypes.map(typeProblems) ?? []
        problems += change.limits.map(Self.limitProblems) ?? []
        problems += change.stalledParcelAfterHours.map(Self.stallProblems) ?? []
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems) }
        guard let merchant = try await merchantRecords.updateMerchant(slug: slug, change) else {
            throw MerchantRegistryError.notFound(slug)
        }
        return try await reloaded(merchant)
    }

    /// Makes a key for the merchant: its record, and the key itself, which is shown this once and kept nowhere.
    public func createKey(for slug: String) async throws -> (key: MerchantKey, text: String) {
        let merchant = try await merchant(slug)
        let key = MerchantAPIKey()
        let record = key.record(merchant: merchant.id, now: now())
        try await merchantRecords.addMerchantKey(record)
        return try await reloaded((record, key.text))
    }

    /// The merchant's keys, revoked ones included, without their hashes.
    public func keys(of slug: String) async throws -> [MerchantKey] {
        try await merchantRecords.merchantKeys(merchantID: try await merchant(slug).id)
    }

    /// Revokes one of the merchant's keys at once (on other instances within a second or so).
    public func revokeKey(_ keyID: String, of slug: String) async throws {
        let merchant = try await merchant(slug)
        guard try await merchantRecords.revokeMerchantKey(merchantID: merchant.id, keyID: keyID) else {
            throw MerchantRegistryError.keyNotFound(keyID, slug)
        }
        try await reloaded(())
    }

    /// Sets the merchant's template, laid over its order types' own: checked over each as a template folder is
    /// (see `OrderTemplate.problems`), refused with every problem.
    public func setTemplate(of slug: String, files: [String: Data], defaults: JSONValue?) async throws -> Merchant {
        let merchant = try await merchant(slug)
        let types = merchant.orderTypes.isEmpty ? Array(orderTypes.keys) : merchant.orderTypes
        var problems: [OrderProblem] = []
        for type in types.sorted() {
            let base = orderTypes[type] ?? OrderTemplate()
            for problem in OrderTemplate.problems(files: files, defaults: defaults, over: base) where !problems.contains(problem) {
                problems.append(problem)
            }
        }
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems) }
        let template = OrderTemplate(files: files, defaults: defaults)
        guard let updated = try await merchantRecords.setMerchantTemplate(slug: slug, template: template.encoded()) else {
            throw MerchantRegistryError.notFound(slug)
        }
        return try await reloaded(updated)
    }

    /// Removes the merchant's template: its orders are packaged with their order type's again.
    public func removeTemplate(of slug: String) async throws -> Merchant {
        guard let updated = try await merchantRecords.setMerchantTemplate(slug: slug, template: nil) else {
            throw MerchantRegistryError.notFound(slug)
        }
        return try await reloaded(updated)
    }

    /// A slug is what a merchant's order identifiers start with: 2 to 32 lower-case letters, digits and hyphens,
    /// starting with a letter or digit.
    public static func slugProblems(_ slug: String) -> [OrderProblem] {
        let allowed = slug.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "-")
        }
        guard (2...32).contains(slug.utf8.count), allowed, slug.first != "-" else {
            return [
                OrderProblem(
                    path: "slug",
                    message: "must be 2 to 32 lower-case letters, digits and hyphens, starting with a letter or digit"
                )
            ]
        }
        if slug == Merchant.defaultSlug {
            return [OrderProblem(path: "slug", message: "\(slug) is the default merchant's")]
        }
        return []
    }

    private func nameProblems(_ name: String) -> [OrderProblem] {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, name.count <= 200, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return [OrderProblem(path: "displayName", message: "must be 1 to 200 characters without control characters")] }
        return []
    }

    private func typeProblems(_ types: [String]) -> [OrderProblem] {
        types.enumerated().compactMap { index, type in
            orderTypes[type] == nil
                ? OrderProblem(
                    path: "orderTypes[\(index)]",
                    message: "\(type) is not an order type this service signs (\(orderTypes.keys.sorted().joined(separator: ", ")))"
                )
                : nil
        }
    }

    /// The hours a merchant may choose before a quiet parcel counts as stalled: an hour to 30 days.
    public static let stalledParcelHours = 1...720

    private static func stallProblems(_ hours: Int?) -> [OrderProblem] {
        guard let hours, !stalledParcelHours.contains(hours) else { return [] }
        return [
            OrderProblem(
                path: "stalledParcelAfterHours",
                message: "must be from \(stalledParcelHours.lowerBound) to \(stalledParcelHours.upperBound) hours (null: off)"
            )
        ]
    }

    private static func limitProblems(_ limits: MerchantLimits) -> [OrderProblem] {
        [
            ("limits.requestsPerSecond", limits.requestsPerSecond), ("limits.maxOrders", limits.maxOrders),
            ("limits.maxAssetBytes", limits.maxAssetBytes),
        ].compactMap { path, value in
            guard let value, value < 1 else { return nil }
            return OrderProblem(path: path, message: "must be at least 1 (leave it out for no limit)")
        }
    }
}

/// Why the registry refused a change.
public enum MerchantRegistryError: Error, Equatable, CustomStringConvertible {
    /// What was sent breaks the rules; every problem with its path, and whether it was a merchant or a partner.
    case invalid([OrderProblem], of: String = "merchant")
    case notFound(String)
    case exists(String)
    case keyNotFound(String, String)
    case partnerNotFound(String)
    case partnerExists(String)
    case partnerKeyNotFound(String, String)
    /// The partner (first) does not publish the merchant's (second) updates.
    case partnerNotLinked(String, String)
    /// The merchant (second) is the last the partner (first) publishes the updates of.
    case partnerNeedsMerchant(String, String)

    public var description: String {
        switch self {
        case .invalid(let problems, let what): (["the \(what) is not valid"] + problems.map { "  - \($0)" }).joined(separator: "\n")
        case .notFound(let slug): "there is no merchant \(slug)"
        case .exists(let slug):
            "the slug \(slug) is taken: another merchant has it, or the default merchant's order identifiers start with \(slug):"
        case .keyNotFound(let key, let slug): "merchant \(slug) holds no key \(key) that is not revoked already"
        case .partnerNotFound(let name): "there is no partner \(name)"
        case .partnerExists(let name): "the name \(name) is taken by another partner"
        case .partnerKeyNotFound(let key, let name): "partner \(name) holds no key \(key) that is not revoked already"
        case .partnerNotLinked(let name, let slug): "partner \(name) does not publish the updates of merchant \(slug)"
        case .partnerNeedsMerchant(let name, let slug):
            "merchant \(slug) is the only one partner \(name) publishes the updates of; remove the partner instead"
        }
    }
}
