import Foundation
import WalletOrdersModel
import WalletOrdersStore

/// What operators do to logistics partners: add them for some merchants, make and revoke their keys.
extension MerchantRegistry {
    /// The carrier aggregators whose webhooks the service takes.
    public static let trackingProviders = ["aftership", "easypost"]

    /// Adds a partner that publishes the updates of the merchants `merchantSlugs`; with `provider`, its events come
    /// by that aggregator's webhook, signed with `providerSecret`.
    public func addPartner(
        name: String,
        merchantSlugs: [String],
        provider: String? = nil,
        providerSecret: String? = nil
    ) async throws -> Partner {
        var problems = Self.slugProblems(name).map { OrderProblem(path: "name", message: $0.message) }
        if merchantSlugs.isEmpty { problems.append(OrderProblem(path: "merchants", message: "name at least one merchant")) }
        let all = try await list()
        var ids: [Int64] = []
        for (index, slug) in merchantSlugs.enumerated() {
            if let merchant = all.first(where: { $0.slug == slug }) {
                ids.append(merchant.id)
            } else {
                problems.append(OrderProblem(path: "merchants[\(index)]", message: "there is no merchant \(slug)"))
            }
        }
        switch (provider, providerSecret) {
        case (nil, nil): break
        case (let provider?, let secret?):
            if !Self.trackingProviders.contains(provider) {
                problems.append(
                    OrderProblem(path: "provider", message: "must be one of \(Self.trackingProviders.joined(separator: ", "))")
                )
            }
            if secret.count < 8 || secret.count > 512 || secret.contains(where: \.isNewline) {
                problems.append(OrderProblem(path: "providerSecret", message: "must be 8 to 512 characters on one line"))
            }
        case (nil, _?): problems.append(OrderProblem(path: "provider", message: "is required with a providerSecret"))
        case (_?, nil): problems.append(OrderProblem(path: "providerSecret", message: "is required with a provider"))
        }
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems, of: "partner") }
        do {
            return try await store.createPartner(
                name: name,
                merchantIDs: ids,
                provider: provider,
                providerSecret: providerSecret,
                now: now()
            )
        } catch StoreError.partnerExists {
            throw MerchantRegistryError.partnerExists(name)
        }
    }

    /// Every partner.
    public func partners() async throws -> [Partner] {
        try await store.partners()
    }

    /// The partner `name`.
    public func partner(_ name: String) async throws -> Partner {
        guard let partner = try await store.partners().first(where: { $0.name == name }) else {
            throw MerchantRegistryError.partnerNotFound(name)
        }
        return partner
    }

    /// Makes a key for the partner: its record, and the key itself, shown this once and kept nowhere.
    public func createPartnerKey(for name: String) async throws -> (key: PartnerKey, text: String) {
        let partner = try await partner(name)
        let key = MerchantAPIKey(prefix: MerchantAPIKey.partnerPrefix)
        let record = key.record(partner: partner.id, now: now())
        try await store.addPartnerKey(record)
        return (record, key.text)
    }

    /// The partner's keys, revoked ones included, without their hashes.
    public func partnerKeys(of name: String) async throws -> [PartnerKey] {
        try await store.partnerKeys(partnerID: try await partner(name).id)
    }

    /// Revokes one of the partner's keys.
    public func revokePartnerKey(_ keyID: String, of name: String) async throws {
        let partner = try await partner(name)
        guard try await store.revokePartnerKey(partnerID: partner.id, keyID: keyID, now: now()) else {
            throw MerchantRegistryError.partnerKeyNotFound(keyID, name)
        }
    }
}
