import Foundation
import WalletOrdersModel
import WalletOrdersStore

/// What a logistics partner's key may change: the progress of fulfillments, of its merchants' orders.
extension OrderService {
    /// Changes an order of one of `partner`'s merchants, which Wallet knows as `walletID`, with a JSON merge patch
    /// that may change only fulfillments' progress; `OrderServiceError.notPartnersToChange` names every other
    /// field it would change. Another merchant's order answers exactly as a missing one; an order of a merchant
    /// that is suspended, `OrderServiceError.merchantSuspended`.
    public func patch(type: String, walletID: String, _ patch: OrderPatch, by partner: Partner) async throws -> WrittenOrder {
        guard patch.assets.isEmpty, patch.removedAssets.isEmpty else {
            throw OrderServiceError.notPartnersToChange([
                OrderProblem(path: "assets", message: "the order's files are the merchant's")
            ])
        }
        guard let merchant = try await owner(of: walletID), partner.merchantIDs.contains(merchant.id) else {
            throw OrderServiceError.orderNotFound
        }
        guard merchant.status == .active else { throw OrderServiceError.merchantSuspended(merchant.slug) }
        let outcome = try await update(
            type: type,
            id: walletID,
            for: merchant,
            author: .partner(partner.name)
        ) { current, assets in
            let next = OrderDocument(fields: current.json.merging(patch: .object(patch.changes)).objectValue ?? [:])
            let problems = Self.partnerProblems(from: current, to: next)
            guard problems.isEmpty else { throw OrderServiceError.notPartnersToChange(problems) }
            return Revision(document: next, assets: assets)
        }
        switch outcome {
        case .written(let written): return try await applyingWaitingEvents(written, merchant: merchant)
        case .unchanged(let order): return WrittenOrder(order: order, pushesQueued: 0, warnings: [])
        }
    }

    /// The merchant whose order Wallet knows as `walletID`: the one whose namespace it starts with, else the default
    /// merchant.
    func owner(of walletID: String) async throws -> Merchant? {
        if let colon = walletID.firstIndex(of: ":"), let merchant = try await merchants.merchant(slug: String(walletID[..<colon])) {
            return merchant
        }
        return try await merchants.merchant(id: Merchant.defaultID)
    }

    /// Every field `next` changes of `previous` that a partner may not change, by path.
    static func partnerProblems(from previous: OrderDocument, to next: OrderDocument) -> [OrderProblem] {
        let before = previous.json.objectValue ?? [:]
        let after = next.json.objectValue ?? [:]
        var problems: [OrderProblem] = []
        // The service's own fields are checked as for merchants, after this.
        let free = Set(["fulfillments"] + managedFields)
        for field in Set(before.keys).union(after.keys).sorted() where !free.contains(field) && before[field] != after[field] {
            problems.append(OrderProblem(path: field, message: "is the merchant's to change"))
        }
        let old = before["fulfillments"]?.arrayValue ?? []
        let new = after["fulfillments"]?.arrayValue ?? []
        let identifiers = { (list: [JSONValue]) in list.map { $0["fulfillmentIdentifier"] } }
        guard old.count == new.count, identifiers(old) == identifiers(new) else {
            problems.append(
                OrderProblem(
                    path: "fulfillments",
                    message: "a partner may not add, remove or reorder fulfillments: send each with its fulfillmentIdentifier, in order"
                )
            )
            return problems
        }
        for (position, (was, now)) in zip(old, new).enumerated() {
            let was = was.objectValue ?? [:]
            let now = now.objectValue ?? [:]
            for field in Set(was.keys).union(now.keys).sorted()
            where !FulfillmentView.progressFields.contains(field) && was[field] != now[field] {
                problems.append(OrderProblem(path: "fulfillments[\(position)].\(field)", message: "is the merchant's to change"))
            }
        }
        return problems
    }
}
