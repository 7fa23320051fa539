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
        problems += Self.providerProblems(provider: provider, secret: providerSecret)
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems, of: "partner") }
        do {
            let partner = try await partnerRecords.createPartner(
                name: name,
                merchantIDs: ids,
                provider: provider,
                providerSecret: providerSecret
            )
            return try await reloaded(partner)
        } catch StoreError.partnerExists {
            throw MerchantRegistryError.partnerExists(name)
        }
    }

    /// What is wrong with a provider and the secret it signs with: both or neither, a provider the service takes
    /// webhooks from, and a secret of 8 to 512 characters on one line.
    static func providerProblems(provider: String?, secret: String?) -> [OrderProblem] {
        var problems: [OrderProblem] = []
        switch (provider, secret) {
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
        return problems
    }

    /// Stops the partner `name` publishing the updates of merchant `slug`'s orders: its keys and its provider's
    /// webhook no longer change them (on running servers within a second or so). A partner keeps at least one
    /// merchant; remove it instead.
    public func unlinkPartner(_ name: String, from slug: String) async throws -> Partner {
        let partner = try await partner(name)
        let merchant = try await merchant(slug)
        guard partner.merchantIDs.contains(merchant.id) else { throw MerchantRegistryError.partnerNotLinked(name, slug) }
        let rest = partner.merchantIDs.filter { $0 != merchant.id }
        guard !rest.isEmpty else { throw MerchantRegistryError.partnerNeedsMerchant(name, slug) }
        guard let changed = try await partnerRecords.changePartner(id: partner.id, PartnerChange(merchantIDs: rest)) else {
            throw MerchantRegistryError.partnerNotFound(name)
        }
        return try await reloaded(changed)
    }

    /// Gives the partner `name` a new secret its provider signs webhooks with, and a provider with it (nil keeps
    /// the one it has): the old secret is refused from then on (on running servers within a second or so).
    public func setProviderSecret(of name: String, provider: String? = nil, secret: String) async throws -> Partner {
        let partner = try await partner(name)
        let provider = provider ?? partner.provider
        let problems = Self.providerProblems(provider: provider, secret: secret)
        guard problems.isEmpty else { throw MerchantRegistryError.invalid(problems, of: "partner") }
        guard let changed = try await partnerRecords.changePartner(id: partner.id, PartnerChange(provider: provider, providerSecret: secret))
        else { throw MerchantRegistryError.partnerNotFound(name) }
        return try await reloaded(changed)
    }

    /// Removes the partner `name`: its keys and its provider's webhook are refused from then on (on running servers
    /// within a second or so), and the tracking events it sent are forgotten. The versions it made keep its name.
    public func removePartner(_ name: String) async throws {
        let partner = try await partner(name)
        guard try await partnerRecords.deletePartner(id: partner.id, eventSource: TrackingSender.partner(partner).source) else {
            throw MerchantRegistryError.partnerNotFound(name)
        }
        try await reloaded(())
    }

    /// Every partner.
    public func partners() async throws -> [Partner] {
        try await partnerRecords.partners()
    }

    /// The partner `name`.
    public func partner(_ name: String) async throws -> Partner {
        guard let partner = try await partnerRecords.partners().first(where: { $0.name == name }) else {
            throw MerchantRegistryError.partnerNotFound(name)
        }
        return partner
    }

    /// Makes a key for the partner: its record, and the key itself, shown this once and kept nowhere.
    public func createPartnerKey(for name: String) async throws -> (key: PartnerKey, text: String) {
        let partner = try await partner(name)
        let key = MerchantAPIKey(prefix: MerchantAPIKey.partnerPrefix)
        let record = key.record(partner: partner.id, now: now())
        try await partnerRecords.addPartnerKey(record)
        return try await reloaded((record, key.text))
    }

    /// The partner's keys, revoked ones included, without their hashes.
    public func partnerKeys(of name: String) async throws -> [PartnerKey] {
        try await partnerRecords.partnerKeys(partnerID: try await partner(name).id)
    }

    /// Revokes one of the partner's keys.
    public func revokePartnerKey(_ keyID: String, of name: String) async throws {
        let partner = try await partner(name)
        guard try await partnerRecords.revokePartnerKey(partnerID: partner.id, keyID: keyID) else {
            throw MerchantRegistryError.partnerKeyNotFound(keyID, name)
        }
        try await reloaded(())
    }
}
