import Foundation
import WalletOrdersModel
import WalletOrdersStore

/// Stalled parcels: a parcel in transit of which nothing was heard for as long as its merchant allows
/// (`Merchant.stalledParcelAfterHours`; off by default) is moved to `issue`, with a `statusDescription` saying so,
/// once, as a version of its order like any other (its pushes, `order.updated`) and a `fulfillment.stalled` webhook
/// naming the parcel. Heard of again (a carrier event, any change to its fulfillment), it is watched again.
extension OrderService {
    /// How many parcels one read of the store hands the pass.
    static let stalledParcelBatch = 200
    /// How many batches one pass takes of one merchant's parcels at most: the rest wait for the next pass.
    static let stalledParcelBatchesPerPass = 50

    /// Finds the parcels of every active merchant that asks for it that stalled, and moves each to `issue`; answers
    /// how many it moved. Safe to run on every instance at once: a parcel is moved by one write, the others find it
    /// moved already.
    @discardableResult
    public func flagStalledParcels() async throws -> Int {
        var moved = 0
        for merchant in try await merchants.all() where merchant.status == .active {
            guard let hours = merchant.stalledParcelAfterHours else { continue }
            moved += try await flagStalledParcels(of: merchant, after: hours)
        }
        return moved
    }

    private func flagStalledParcels(of merchant: Merchant, after hours: Int) async throws -> Int {
        let heardBefore = now().addingTimeInterval(-Double(hours) * 3_600)
        var moved = 0
        for _ in 0..<Self.stalledParcelBatchesPerPass {
            let quiet = try await store.tracking.quietParcels(
                merchantID: merchant.id,
                heardBefore: heardBefore,
                limit: Self.stalledParcelBatch
            )
            for parcel in quiet {
                if try await flagStalled(parcel, of: merchant, after: hours, heardBefore: heardBefore) {
                    moved += 1
                } else {
                    // Moved, the parcel is in `issue` and heard of by that version; not moved, it is marked so that the
                    // next read does not hand it back.
                    try await store.tracking.markStalled(parcel, heardBefore: heardBefore)
                }
            }
            if quiet.count < Self.stalledParcelBatch { break }
        }
        return moved
    }

    /// Moves `parcel`'s fulfillment to `issue` when it is still in transit and still quiet, as read with the order in
    /// the write; answers whether it did. A change the order cannot take (refused as invalid, past the merchant's
    /// limits, the order gone) is given up: the parcel is marked all the same, and not tried again.
    private func flagStalled(
        _ parcel: TrackedFulfillment,
        of merchant: Merchant,
        after hours: Int,
        heardBefore: Date
    ) async throws
        -> Bool
    {
        let identifier = parcel.parcel.fulfillmentIdentifier
        let number = parcel.parcel.trackingNumber
        do {
            let outcome = try await update(
                type: parcel.orderTypeIdentifier,
                id: parcel.orderIdentifier,
                for: merchant,
                author: .service
            ) { document, assets in
                // Read again on every attempt, after the order: an event applied since moved both on.
                let stored = try await store.tracking.trackedParcels(type: parcel.orderTypeIdentifier, id: parcel.orderIdentifier)
                guard
                    let current = stored.first(where: { $0.fulfillmentIdentifier == identifier && $0.trackingNumber == number }),
                    current.stalledAt == nil, let heard = current.heardAt, heard < heardBefore
                else { return Revision(document: document, assets: assets) }
                var carrier: String?
                let changed = document.changingFulfillments { fulfillment in
                    guard fulfillment.identifier == identifier, fulfillment.trackingNumber == number, fulfillment.isInTransit
                    else { return }
                    carrier = fulfillment.carrier
                    fulfillment.status = "issue"
                    fulfillment.statusDescription = Self.stalledDescription(carrier: fulfillment.carrier, hours: hours)
                }
                return Revision(document: changed, assets: assets) { version in
                    [
                        .fulfillmentStalled(
                            version: version,
                            fulfillmentIdentifier: identifier,
                            trackingNumber: number,
                            carrier: carrier,
                            heardAt: heard
                        )
                    ]
                }
            }
            if case .written = outcome { return true }
            return false
        } catch OrderServiceError.orderNotFound, OrderServiceError.invalidOrder, OrderServiceError.limitReached {
            return false
        }
    }

    /// What Wallet shows under a stalled parcel's `issue`: `No news from UPS for 3 days`.
    static func stalledDescription(carrier: String?, hours: Int) -> String {
        let span = hours % 24 == 0 ? (hours / 24 == 1 ? "a day" : "\(hours / 24) days") : (hours == 1 ? "an hour" : "\(hours) hours")
        return "No news from \(carrier ?? "the carrier") for \(span)"
    }
}
