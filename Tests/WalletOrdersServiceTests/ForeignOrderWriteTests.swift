import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// The default merchant names other merchants' orders by Wallet's identifier (`acme:1001`): its writes of them are
/// refused as writes of missing orders are, after the same reads, so that no answer and no time tells whether one
/// exists.
@Suite(.timeLimit(.minutes(5))) struct ForeignOrderWriteTests {
    @Test(arguments: StoreEngine.allCases)
    func theDefaultMerchantsWriteOfAnotherMerchantsOrderReadsNothingMoreThanAWriteOfAMissingOne(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let counting = CountingStore(store)
            let service = try OrderServiceTests.service(store, orders: counting)
            let acme = try await MerchantRegistry(service: service).add(slug: "acme", displayName: "Acme")
            try await service.merchants.reload()
            var fields = SampleOrder.json().objectValue ?? [:]
            for key in ["createdAt", "updatedAt", "merchant"] { fields.removeValue(forKey: key) }
            fields["orderIdentifier"] = .string("1001")
            _ = try await service.create(OrderInput(fields: fields), for: acme)
            let type = DevelopmentKeys.orderType

            var reads: [String: [String: Int]] = [:]
            for id in ["acme:1001", "acme:9999"] {
                counting.reset()
                await #expect(throws: OrderServiceError.orderNotFound) {
                    try await service.patch(type: type, id: id, OrderPatch(changes: ["orderNumber": .string("X")]))
                }
                await #expect(throws: OrderServiceError.orderNotFound) {
                    try await service.replace(type: type, id: id, with: OrderInput(fields: fields))
                }
                #expect(counting.calls["currentOrder"] == nil, "\(id): the order was read: \(counting.calls)")
                reads[id] = counting.calls
            }
            #expect(reads["acme:1001"] == reads["acme:9999"])
            #expect(try await store.versions(type: type, id: "acme:1001").count == 1, "nothing written")
        }
    }
}
