import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// A parcel whose number says which carrier it is gets the carrier and its tracking page in every write (one place:
/// `OrderService.completed`), and nothing a writer named is ever replaced.
@Suite(.timeLimit(.minutes(3))) struct CarrierFillTests {
    static func parcel(_ number: String, carrier: String? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("parcel-1"),
            "status": .string("onTheWay"), "trackingNumber": .string(number),
        ]
        if let carrier { fields["carrier"] = .string(carrier) }
        return .object(fields)
    }

    @Test(arguments: StoreEngine.allCases)
    func aMerchantsCreateAndPatchGetTheCarrierOfTheNumberAndKeepWhatTheyName(engine: StoreEngine) async throws {
        try await ServiceHarness(engine).run { client in
            let order = try await client.createOrder { fields in
                fields["fulfillments"] = .array([Self.parcel("1Z999AA10123456784")])
            }
            var stored = try #require(try await client.store.order(type: order.type, id: order.id))
            var parcel = try #require(stored.document.fulfillmentViews.first)
            #expect(parcel.carrier == "UPS")
            #expect(parcel.trackingURL == "https://www.ups.com/track?tracknum=1Z999AA10123456784")

            // A new number in a patch: the carrier the merchant names is kept, and its page for this number added.
            let patched = try await client.patch(order, .object(["fulfillments": .array([Self.parcel("1Z999AA10123456784", carrier: "ups")])]))
            #expect(patched.status == .ok)
            stored = try #require(try await client.store.order(type: order.type, id: order.id))
            parcel = try #require(stored.document.fulfillmentViews.first)
            #expect(parcel.carrier == "ups")
            #expect(parcel.trackingURL == "https://www.ups.com/track?tracknum=1Z999AA10123456784")

            // Another carrier named, or a number whose check digit is wrong: nothing is added.
            for (number, carrier) in [("1Z999AA10123456784", "Example Post"), ("1Z999AA10123456785", nil)] {
                let answer = try await client.patch(order, .object(["fulfillments": .array([Self.parcel(number, carrier: carrier)])]))
                #expect(answer.status == .ok)
                stored = try #require(try await client.store.order(type: order.type, id: order.id))
                parcel = try #require(stored.document.fulfillmentViews.first)
                #expect(parcel.carrier == carrier && parcel.trackingURL == nil, "\(number) \(carrier ?? "none")")
            }
        }
    }
}
