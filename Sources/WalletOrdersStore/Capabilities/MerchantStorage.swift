import Foundation

/// Merchants, their templates and API keys.
public protocol MerchantStorage: Sendable {
    /// Adds a merchant; throws `StoreError.merchantExists` when the slug is taken, or when the default merchant's
    /// order identifiers already use it (`slug:…`), so that no two merchants' identifiers can meet.
    func createMerchant(
        slug: String,
        displayName: String,
        orderTypes: [String],
        limits: MerchantLimits
    )
        async throws -> Merchant
    /// Changes the fields `change` names; nil when there is no such merchant.
    func updateMerchant(slug: String, _ change: MerchantChange) async throws -> Merchant?
    /// Every merchant, in the order they were made, with what they hold.
    func merchants() async throws -> [Merchant]
    /// Sets a merchant's template (opaque to the store; nil removes it) and moves its template version on; nil when
    /// there is no such merchant.
    func setMerchantTemplate(slug: String, template: Data?) async throws -> Merchant?
    /// A merchant's template and its version; nil when it has none.
    func merchantTemplate(merchantID: Int64) async throws -> (version: Int, data: Data)?
    /// Stores a merchant's new key.
    func addMerchantKey(_ key: MerchantKey) async throws
    /// The keys of one merchant, or of every merchant, revoked ones included, oldest first.
    func merchantKeys(merchantID: Int64?) async throws -> [MerchantKey]
    /// Revokes one of a merchant's keys; answers whether it held that key unrevoked.
    func revokeMerchantKey(merchantID: Int64, keyID: String) async throws -> Bool
    /// Records when merchant and partner keys were last used (key id to time), without moving `merchantsVersion` on.
    func recordKeyUse(_ uses: [String: Date]) async throws
    /// Moves on with every change to merchants, their templates and keys, and to partners and theirs: a process that does not hear another's
    /// events (the command line beside a running server on SQLite) notices a change by it.
    func merchantsVersion() async throws -> Int64
}
