import Foundation
import Synchronization
import Testing
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore
import WalletOrdersTesting

/// Imports through the service on real stores: idempotent by the merchant's identifier, a version only for a real
/// change, lines naming one order written in their order whatever the window, and the export's form read back.
@Suite(.timeLimit(.minutes(5))) struct OrderImportTests {
    /// The sample order as a merchant's body: its identifier `id`, the fields the service sets left out.
    static func body(_ id: String, _ change: (inout [String: JSONValue]) -> Void = { _ in }) -> OrderInput {
        var fields = SampleOrder.json(orderIdentifier: id).objectValue ?? [:]
        for key in ["createdAt", "updatedAt"] { fields.removeValue(forKey: key) }
        change(&fields)
        return OrderInput(fields: fields)
    }

    /// `inputs` as the lines of an import, numbered from 1.
    static func lines(_ inputs: [OrderInput]) -> AsyncStream<ImportLine> {
        AsyncStream { continuation in
            for (index, input) in inputs.enumerated() {
                continuation.yield(ImportLine(number: index + 1, content: .order(input)))
            }
            continuation.finish()
        }
    }

    /// Every result `importOrders` emits, in the order emitted.
    static func results(_ service: OrderService, _ inputs: [OrderInput], window: Int) async throws -> [ImportLineResult] {
        var results: [ImportLineResult] = []
        try await service.importOrders(lines(inputs), window: window) { results += $0 }
        return results
    }

    @Test(arguments: StoreEngine.allCases)
    func anIdenticalOrderIsLeftAloneAndOnlyARealChangeBecomesAVersion(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try OrderServiceTests.service(store)
            let type = DevelopmentKeys.orderType
            guard case .created(let created) = try await service.importOrder(Self.body("A-1")) else {
                Issue.record("not created")
                return
            }
            #expect(created.order.version == 1)
            guard case .unchanged = try await service.importOrder(Self.body("A-1")) else {
                Issue.record("the same order again is not unchanged")
                return
            }
            // The template's defaults filled in and the type named or not: still the same order.
            let spelledOut = Self.body("A-1") { fields in
                fields["merchant"] = created.order.document["merchant"]
                fields.removeValue(forKey: "orderTypeIdentifier")
            }
            guard case .unchanged = try await service.importOrder(spelledOut) else {
                Issue.record("the order with its defaults spelled out is not unchanged")
                return
            }
            #expect(try await store.versions(type: type, id: "A-1").count == 1, "no version, so no push and no signature")

            guard case .updated(let updated) = try await service.importOrder(Self.body("A-1") { $0["status"] = .string("completed") })
            else {
                Issue.record("a changed order is not updated")
                return
            }
            #expect(updated.order.version == 2 && updated.order.document["status"] == .string("completed"))
            #expect(updated.order.authenticationToken == created.order.authenticationToken, "the order keeps its token")

            // Files count as content: added, the same again, then left out (none, as when creating).
            let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
            var withPhoto = Self.body("A-1") { $0["status"] = .string("completed") }
            withPhoto.assets = ["photo.png": png]
            let outcomes = [
                try await service.importOrder(withPhoto), try await service.importOrder(withPhoto),
                try await service.importOrder(Self.body("A-1") { $0["status"] = .string("completed") }),
            ]
            #expect(outcomes.map(\.result) == [.updated, .unchanged, .updated])
            #expect(try await store.currentOrder(type: type, id: "A-1")?.assets == [:])
            #expect(try await store.versions(type: type, id: "A-1").count == 4)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func linesNamingOneOrderAreWrittenInTheirOrderAndResultsComeInTheLinesOrder(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try OrderServiceTests.service(store)
            // Thirty lines over three orders, each line a new order number, through a window of four.
            let inputs = (0..<30).map { index in Self.body("X-\(index % 3)") { $0["orderNumber"] = .string("N-\(index)") } }
            let results = try await Self.results(service, inputs, window: 4)
            #expect(results.map(\.line) == Array(1...30))
            #expect(results.prefix(3).allSatisfy { $0.result == .created })
            #expect(results.dropFirst(3).allSatisfy { $0.result == .updated })
            #expect(results.map(\.orderIdentifier) == (0..<30).map { "X-\($0 % 3)" })
            for id in 0..<3 {
                let order = try #require(try await store.order(type: DevelopmentKeys.orderType, id: "X-\(id)"))
                #expect(order.document["orderNumber"] == .string("N-\(27 + id)"), "the last line naming it wins")
                #expect(order.version == 10)
            }
        }
    }

    @Test func aLinesProblemIsItsResultAndTheImportGoesOn() async throws {
        try await TestStore.with(.sqlite) { store in
            let service = try OrderServiceTests.service(store)
            let lines = AsyncStream<ImportLine> { continuation in
                continuation.yield(ImportLine(number: 1, content: .order(Self.body("B-1") { $0["status"] = .string("lost") })))
                continuation.yield(
                    ImportLine(
                        number: 3,
                        content: .unreadable(
                            orderIdentifier: "B-2",
                            problems: [OrderProblem(path: "assets.x.png", message: "must be base64 text")]
                        )
                    )
                )
                continuation.yield(ImportLine(number: 4, content: .order(Self.body("B-3") { $0.removeValue(forKey: "orderIdentifier") })))
                continuation.yield(ImportLine(number: 5, content: .order(Self.body("B-4") { $0["authenticationToken"] = .string("mine") })))
                continuation.yield(ImportLine(number: 6, content: .order(Self.body("B-5"))))
                continuation.finish()
            }
            var results: [ImportLineResult] = []
            try await service.importOrders(lines) { results += $0 }
            #expect(results.map(\.line) == [1, 3, 4, 5, 6])
            #expect(results.map(\.result) == [.invalid, .invalid, .invalid, .invalid, .created])
            #expect(results.map(\.orderIdentifier) == ["B-1", "B-2", nil, "B-4", "B-5"])
            #expect(results.map { $0.problems.first?.path } == ["status", "assets.x.png", "orderIdentifier", "authenticationToken", nil])
            #expect(try await store.order(type: DevelopmentKeys.orderType, id: "B-1") == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theExportIsWhatTheImportTakesAndReadsBackUnchanged(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let service = try OrderServiceTests.service(store)
            let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
            var withPhoto = Self.body("E-1")
            withPhoto.assets = ["photo.png": png]
            _ = try await service.importOrder(withPhoto)
            _ = try await service.importOrder(Self.body("E-2"))
            _ = try await service.patch(type: DevelopmentKeys.orderType, id: "E-2", OrderPatch(changes: ["status": .string("completed")]))
            var exported: [OrderInput] = []
            // A page of one: the walk goes on from page to page.
            try await service.exportOrders(pageSize: 1) { exported.append($0) }
            #expect(exported.map { $0.fields["orderIdentifier"] } == [.string("E-2"), .string("E-1")], "newest first")
            for input in exported {
                for field in ["authenticationToken", "webServiceURL", "createdAt", "updatedAt"] {
                    #expect(input.fields[field] == nil, "\(field) is the service's")
                }
            }
            #expect(exported.last?.assets == ["photo.png": png])
            #expect(exported.first?.fields["status"] == .string("completed"))
            for input in exported { #expect(try await service.importOrder(input).result == .unchanged) }
            var none: [OrderInput] = []
            try await service.exportOrders(type: "order.com.example.other") { none.append($0) }
            #expect(none.isEmpty)
        }
    }
}
