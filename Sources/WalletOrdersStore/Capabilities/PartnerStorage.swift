import Foundation

/// Logistics partners, the merchants they speak for, and their keys.
public protocol PartnerStorage: Sendable {
    /// Adds a logistics partner for the merchants `merchantIDs`; throws `StoreError.partnerExists` when the name is
    /// taken.
    func createPartner(
        name: String,
        merchantIDs: [Int64],
        provider: String?,
        providerSecret: String?
    ) async throws -> Partner
    /// Every partner, in the order they were made, with their providers' secrets.
    func partners() async throws -> [Partner]
    /// Changes what `change` names of the partner `id`; nil when there is no such partner.
    func changePartner(id: Int64, _ change: PartnerChange) async throws -> Partner?
    /// Deletes the partner `id`, its keys, its links to merchants, and the tracking events it sent (kept with the
    /// source `eventSource`); answers whether there was such a partner. The versions it made keep its name.
    func deletePartner(id: Int64, eventSource: String) async throws -> Bool
    /// Stores a partner's new key.
    func addPartnerKey(_ key: PartnerKey) async throws
    /// The keys of one partner, or of every partner, revoked ones included, oldest first.
    func partnerKeys(partnerID: Int64?) async throws -> [PartnerKey]
    /// Revokes one of a partner's keys; answers whether it held that key unrevoked.
    func revokePartnerKey(partnerID: Int64, keyID: String) async throws -> Bool
}
