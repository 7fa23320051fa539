import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore

@testable import WalletOrdersService

/// What a version says of each parcel its order follows (`OrderService.parcels`): whether it is in transit, and
/// whether the version is news of it (which also ends a stall). Decided here once; the engines only store it.
@Suite(.timeLimit(.minutes(1))) struct ParcelNewsTests {
    static func document(_ parcels: [(id: String, number: String?, status: String, pickup: Bool)]) -> OrderDocument {
        OrderDocument(fields: [
            "fulfillments": .array(
                parcels.map { parcel in
                    var fields: [String: JSONValue] = [
                        "fulfillmentIdentifier": .string(parcel.id), "status": .string(parcel.status),
                        "fulfillmentType": .string(parcel.pickup ? "pickup" : "shipping"),
                    ]
                    if let number = parcel.number { fields["trackingNumber"] = .string(number) }
                    return .object(fields)
                }
            )
        ])
    }

    static func one(_ status: String, number: String = "1Z1") -> OrderDocument {
        document([("f1", number, status, false)])
    }

    static func news(_ after: OrderDocument, before: OrderDocument?, event: Bool = false) throws -> (news: Bool, moving: Bool?) {
        let times = event ? ["f1": Date(timeIntervalSince1970: 1_795_342_530)] : [:]
        let parcel = try #require(OrderService.parcels(in: after, eventTimes: times, before: before).first)
        return (parcel.isNews, parcel.inTransit)
    }

    @Test func onlyShippingFulfillmentsOnTheirWayAreInTransit() throws {
        for (status, moving) in [
            ("open", false), ("processing", false), ("shipped", true), ("onTheWay", true), ("outForDelivery", true),
            ("delivered", false), ("issue", false), ("cancelled", false),
        ] {
            #expect(try Self.news(Self.one(status), before: nil).moving == moving, "\(status)")
        }
        let pickup = OrderService.parcels(in: Self.document([("f1", "1Z1", "onTheWay", true)]))
        #expect(pickup.first?.inTransit == false)
        #expect(OrderService.parcels(in: Self.document([("f1", nil, "onTheWay", false)])).isEmpty, "no number, nothing to follow")
    }

    @Test func anEventOrAnyChangeToTheFulfillmentIsNewsAndNothingElseIs() throws {
        let onTheWay = Self.one("onTheWay")
        #expect(try Self.news(onTheWay, before: nil) == (true, true), "a new order's parcel")
        #expect(try Self.news(onTheWay, before: onTheWay) == (false, true), "the same version again")
        #expect(try Self.news(onTheWay, before: onTheWay, event: true) == (true, true), "an event that changed nothing shown")
        #expect(try Self.news(Self.one("outForDelivery"), before: onTheWay) == (true, true), "a status written")
        #expect(try Self.news(Self.one("onTheWay", number: "1Z2"), before: onTheWay) == (true, true), "a new number")
        #expect(try Self.news(Self.one("shipped"), before: Self.one("processing")) == (true, true), "a label, then shipped")
        #expect(try Self.news(Self.one("issue"), before: onTheWay) == (true, false))
        var described = try #require(onTheWay.fulfillmentViews.first)
        described.statusDescription = "Arrived at the sorting centre"
        let changed = onTheWay.changingFulfillments { $0 = described }
        #expect(try Self.news(changed, before: onTheWay) == (true, true), "a description written")
        var other = onTheWay
        other["orderNumber"] = .string("#1001")
        #expect(try Self.news(other, before: onTheWay) == (false, true), "another part of the order")
        let added = Self.document([("f1", "1Z1", "onTheWay", false), ("f2", "1Z2", "onTheWay", false)])
        #expect(OrderService.parcels(in: added, before: onTheWay).map(\.isNews) == [false, true], "a fulfillment added")
    }
}
