import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore

/// The merchants and their keys, in memory: who a merchant API key speaks for, and each merchant's template laid
/// over its order type's.
///
/// Read whole from the store (a thousand merchants are a few hundred kilobytes), and read again whenever the
/// store says they changed (`StoreEvent.merchantsChanged`: at once in this process, through `NOTIFY` from other
/// instances on PostgreSQL) and whenever `OrderStore.merchantsVersion` moved on, which is looked at every second:
/// the command line changing merchants beside a running server on SQLite shares none of its events. A key revoked
/// from the command line stops working within a second or so.
public final class MerchantDirectory: Sendable {
    private let merchantRecords: any MerchantStorage
    private let partnerRecords: any PartnerStorage
    private let lifecycle: any StoreLifecycle
    /// SHA-256 of the configuration's merchant keys, which speak for the default merchant.
    private let configuredKeys: [Data]
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var version: Int64?
        var merchants: [Int64: Merchant] = [:]
        var bySlug: [String: Int64] = [:]
        var keys: [String: MerchantKey] = [:]
        var partners: [Int64: Partner] = [:]
        var partnerKeys: [String: PartnerKey] = [:]
        /// Each merchant's template over each order type's, by merchant and order type.
        var templates: [TemplateKey: (version: Int, template: OrderTemplate)] = [:]
        /// Keys held in memory only (the playground's), by their SHA-256, with the slug of the merchant they speak for.
        var sessionKeys: [Data: String] = [:]
        /// Keys used since the uses were last recorded, with when.
        var uses: [String: Date] = [:]
        var usesRecorded = Date.distantPast
    }

    private struct TemplateKey: Hashable {
        let merchant: Int64
        let orderType: String
    }

    /// How often key uses are written back (`MerchantKey.lastUsedAt`).
    static let useRecordingInterval: TimeInterval = 30

    /// A directory over a store's merchants and partners, following the changes `lifecycle` announces;
    /// `configuredKeys` (the configuration's merchant keys) speak for the default merchant.
    public init(
        merchants: any MerchantStorage,
        partners: any PartnerStorage,
        lifecycle: any StoreLifecycle,
        configuredKeys: [String],
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        merchantRecords = merchants
        partnerRecords = partners
        self.lifecycle = lifecycle
        self.configuredKeys = configuredKeys.map(MerchantAPIKey.hash)
        self.now = now
    }

    /// Reads the merchants and keys again.
    public func reload() async throws {
        let version = try await merchantRecords.merchantsVersion()
        let merchants = try await merchantRecords.merchants()
        let keys = try await merchantRecords.merchantKeys(merchantID: nil)
        let partners = try await partnerRecords.partners()
        let partnerKeys = try await partnerRecords.partnerKeys(partnerID: nil)
        state.withLock { state in
            // Reloads run at once (a change announced, the look every second, a caller's own after a change): one
            // that read an older version and finished last must not bring back what a newer one left out (a key
            // revoked, and accepted again until the next look).
            if let current = state.version, version < current { return }
            state.partners = Dictionary(uniqueKeysWithValues: partners.map { ($0.id, $0) })
            state.partnerKeys = Dictionary(partnerKeys.map { ($0.id, $0) }) { first, _ in first }
            state.version = version
            state.merchants = Dictionary(uniqueKeysWithValues: merchants.map { ($0.id, $0) })
            state.bySlug = Dictionary(uniqueKeysWithValues: merchants.map { ($0.slug, $0.id) })
            state.keys = Dictionary(keys.map { ($0.id, $0) }) { first, _ in first }
            // Templates of a version no longer current are dropped when next asked for.
        }
    }

    private func loaded() async throws {
        if state.withLock({ $0.version == nil }) { try await reload() }
    }

    /// Reads again on every change the store announces, and whenever its version moved on (looked at every
    /// second), and records key uses now and then; until the store closes.
    func watch() async {
        let events = lifecycle.events()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events where event == .merchantsChanged || event == .resync {
                    try? await self.reload()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    if Task.isCancelled { break }
                    await self.look()
                }
            }
            // The event stream ends when the store closes: so does the polling.
            await group.next()
            group.cancelAll()
        }
    }

    /// Reads again if the store's version moved on since the last read.
    private func reloadIfChanged() async {
        let known = state.withLock { $0.version }
        if let version = try? await merchantRecords.merchantsVersion(), version != known { try? await reload() }
    }

    /// One look at the store's version, and the key uses to record when it is time.
    private func look() async {
        await reloadIfChanged()
        let time = now()
        let uses = state.withLock { state -> [String: Date] in
            guard time.timeIntervalSince(state.usesRecorded) >= Self.useRecordingInterval, !state.uses.isEmpty else {
                return [:]
            }
            state.usesRecorded = time
            defer { state.uses.removeAll() }
            return state.uses
        }
        if !uses.isEmpty { try? await merchantRecords.recordKeyUse(uses) }
    }

    /// The merchant a merchant API key speaks for, suspended or not; nil for a key no merchant holds (or one
    /// revoked). A key's SHA-256 is compared in constant time with the stored one, found by the key's public id;
    /// the configuration's keys are all compared, each in constant time, so timing tells nothing of which matched.
    ///
    /// A key of an id the directory has not read yet makes it look at the store's version first: a key made a moment
    /// ago by another instance or the command line works the moment it is shown, not at the next look. Only a
    /// well-formed key does, and each failure counts toward the address's authentication-failure limit, so this costs
    /// the store one small read per failed attempt at most.
    public func authenticate(_ key: String) async throws -> Merchant? {
        try await loaded()
        let parsed = MerchantAPIKey(key)
        if let parsed, state.withLock({ $0.keys[parsed.id] == nil }) { await reloadIfChanged() }
        let hash = MerchantAPIKey.hash(key)
        let time = now()
        return state.withLock { state -> Merchant? in
            if let parsed {
                let stored = state.keys[parsed.id]
                let matches = ConstantTime.equals(hash, stored?.hash ?? Data(count: hash.count))
                guard let stored, matches, stored.revokedAt == nil else { return nil }
                state.uses[stored.id] = time
                return state.merchants[stored.merchantID]
            }
            let matches = configuredKeys.reduce(false) { found, configured in ConstantTime.equals(hash, configured) || found }
            if matches { return state.merchants[Merchant.defaultID] }
            let session = state.sessionKeys.reduce(nil as String?) { found, entry in
                ConstantTime.equals(hash, entry.key) ? entry.value : found
            }
            return session.flatMap { state.bySlug[$0] }.flatMap { state.merchants[$0] }
        }
    }

    /// The partner a partner key speaks for; nil for a key no partner holds (or one revoked). Compared as merchant
    /// keys are: the SHA-256 in constant time, found by the key's public id.
    public func authenticatePartner(_ key: String) async throws -> Partner? {
        try await loaded()
        guard let parsed = MerchantAPIKey(key, prefix: MerchantAPIKey.partnerPrefix) else { return nil }
        // As for merchant keys: a key made a moment ago works at once.
        if state.withLock({ $0.partnerKeys[parsed.id] == nil }) { await reloadIfChanged() }
        let hash = MerchantAPIKey.hash(key)
        let time = now()
        return state.withLock { state -> Partner? in
            let stored = state.partnerKeys[parsed.id]
            let matches = ConstantTime.equals(hash, stored?.hash ?? Data(count: hash.count))
            guard let stored, matches, stored.revokedAt == nil else { return nil }
            state.uses[stored.id] = time
            return state.partners[stored.partnerID]
        }
    }

    /// Reads the store again if its merchants, partners or keys changed since the last read: for a check that failed
    /// on what was read, so that what another instance or the command line made a moment ago (a partner, a provider's
    /// new secret) works the moment it is shown, as a new key does.
    public func refresh() async {
        await reloadIfChanged()
    }

    /// The partner named `name`.
    public func partner(named name: String) async throws -> Partner? {
        try await loaded()
        return state.withLock { $0.partners.values.first { $0.name == name } }
    }

    /// The partner with this id.
    public func partner(id: Int64) async throws -> Partner? {
        try await loaded()
        return state.withLock { $0.partners[id] }
    }

    /// The partners that publish the updates of `merchantID`'s orders.
    func partners(of merchantID: Int64) async throws -> [Partner] {
        try await loaded()
        return state.withLock { $0.partners.values.filter { $0.merchantIDs.contains(merchantID) }.sorted { $0.id < $1.id } }
    }

    /// Lets `key`, which lives in this process's memory only, speak for merchant `slug` until the process ends.
    public func admit(_ key: String, for slug: String) {
        let hash = MerchantAPIKey.hash(key)
        state.withLock { $0.sessionKeys[hash] = slug }
    }

    /// The merchant with this id.
    public func merchant(id: Int64) async throws -> Merchant? {
        try await loaded()
        return state.withLock { $0.merchants[id] }
    }

    /// The merchant with this slug.
    public func merchant(slug: String) async throws -> Merchant? {
        try await loaded()
        return state.withLock { state in state.bySlug[slug].flatMap { state.merchants[$0] } }
    }

    /// The slugs of every merchant but the default one, for finding which merchant's order a device log names.
    func platformSlugs() async throws -> [String: Int64] {
        try await loaded()
        return state.withLock { $0.bySlug.filter { $0.value != Merchant.defaultID } }
    }

    /// Every merchant, as last read.
    public func all() async throws -> [Merchant] {
        try await loaded()
        return state.withLock { $0.merchants.values.sorted { $0.id < $1.id } }
    }

    /// The template the orders of `merchantID` of `orderType` are packaged with: the order type's, under the
    /// merchant's name (for merchants other than the default one) and under the merchant's own template when it
    /// has one. Kept until the merchant's template changes.
    func template(for merchantID: Int64, of orderType: OrderType) async throws -> OrderTemplate {
        try await loaded()
        guard let merchant = state.withLock({ $0.merchants[merchantID] }) else { return orderType.template }
        if merchant.isDefault && merchant.templateVersion == 0 { return orderType.template }
        let key = TemplateKey(merchant: merchantID, orderType: orderType.identifier)
        if let cached = state.withLock({ $0.templates[key] }), cached.version == merchant.templateVersion {
            return cached.template
        }
        var layers = orderType.template
        if !merchant.isDefault {
            layers = layers.overlaid(
                by: OrderTemplate(defaults: .object(["merchant": .object(["displayName": .string(merchant.displayName)])]))
            )
        }
        if merchant.templateVersion > 0, let stored = try await merchantRecords.merchantTemplate(merchantID: merchantID) {
            layers = layers.overlaid(by: try OrderTemplate(encoded: stored.data))
        }
        let template = layers
        state.withLock { $0.templates[key] = (merchant.templateVersion, template) }
        return template
    }
}
