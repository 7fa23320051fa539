import Foundation
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

/// Bulk import and export over HTTP against the real server on both engines: one result per line in the lines'
/// order, idempotent by the merchant's identifiers, an export that another server imports as it was, and a body
/// read as it comes while the answer goes out.
@Suite(.timeLimit(.minutes(5))) struct ImportExportTests {
    static let type = DevelopmentKeys.orderType

    /// The sample order as one line of an import: the body `POST /orders` takes, identified `id`.
    static func line(_ id: String?, _ change: (inout [String: JSONValue]) -> Void = { _ in }) -> String {
        var fields = SampleOrder.json(orderIdentifier: id ?? "").objectValue ?? [:]
        for key in ["updatedAt", "createdAt", "merchant"] { fields.removeValue(forKey: key) }
        if id == nil { fields.removeValue(forKey: "orderIdentifier") }
        change(&fields)
        return String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self)
    }

    @Test(arguments: StoreEngine.allCases)
    func anImportAnswersEachLineInOrderAndWritesOnlyWhatChangedSoThatRunningItAgainChangesNothing(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            // A-1 as its backend created it; C-1 too, each with a device registered.
            let a1 = try await client.createOrder(id: "A-1")
            let c1 = try await client.createOrder(id: "C-1")
            for order in [a1, c1] { #expect(try await client.register(order, device: "phone-\(order.id)").status == .created) }
            harness.clock.advance(5)
            let lines = [
                Self.line("B-1"),
                Self.line("A-1"),
                "",
                Self.line("C-1") { $0["status"] = .string("completed") },
                Self.line("D-1") { $0["status"] = .string("lost") },
                "{not json",
                Self.line(nil),
                "  ",
                Self.line("E-1") { $0["webServiceURL"] = .string("https://elsewhere.example.com") },
            ]
            let first = try await client.importOrders(lines)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "application/x-ndjson")
            let results = first.lines
            #expect(results.map { $0["line"]?.intValue } == [1, 2, 4, 5, 6, 7, 9])
            #expect(
                results.map { $0["result"]?.stringValue }
                    == ["created", "unchanged", "updated", "invalid", "invalid", "invalid", "invalid"]
            )
            #expect(results.map { $0["orderIdentifier"]?.stringValue } == ["B-1", "A-1", "C-1", "D-1", nil, nil, "E-1"])
            #expect(results[4]["orderIdentifier"] == .null, "null, not left out")
            #expect(results.prefix(3).allSatisfy { $0["problems"] == .array([]) }, "problems is always there, empty when none")
            #expect(
                results.dropFirst(3).map { $0["problems"]?.arrayValue?.first?["path"]?.stringValue }
                    == ["status", "", "orderIdentifier", "webServiceURL"]
            )

            for (id, version) in [("A-1", 1), ("B-1", 1), ("C-1", 2)] {
                #expect(try await client.store.order(type: Self.type, id: id)?.version == version, "\(id)")
            }
            #expect(try await client.store.order(type: Self.type, id: "C-1")?.document["status"] == .string("completed"))
            #expect(try await client.store.order(type: Self.type, id: "D-1") == nil)
            // The changed order's device is told, as after a PUT; the unchanged one's is not.
            #expect(try await client.merchant(.get, "/api/v1/pushes?order=C-1").json["pushes"]?.arrayValue?.count == 1)
            #expect(try await client.merchant(.get, "/api/v1/pushes?order=A-1").json["pushes"] == .array([]))

            // The same import again: nothing changes, nothing is pushed.
            harness.clock.advance(5)
            let again = try await client.importOrders(lines).lines
            #expect(
                again.map { $0["result"]?.stringValue }
                    == ["unchanged", "unchanged", "unchanged", "invalid", "invalid", "invalid", "invalid"]
            )
            #expect(try await client.store.order(type: Self.type, id: "C-1")?.version == 2)
            #expect(try await client.store.order(type: Self.type, id: "B-1")?.version == 1)
            #expect(try await client.merchant(.get, "/api/v1/pushes?order=C-1").json["pushes"]?.arrayValue?.count == 1)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anExportImportedIntoAnotherServerGivesTheSameOrdersAndImportedBackChangesNothing(engine: StoreEngine) async throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        let exported = Mutex<String>("")
        try await ServiceHarness(engine).run { client in
            _ = try await client.createOrder(id: "X-1") { order in
                order["assets"] = .object(["photo.png": .string(png.base64EncodedString())])
                order["lineItems"] = .array([.object(["title": .string("Photo"), "quantity": .int(1), "image": .string("photo.png")])])
            }
            let x2 = try await client.createOrder(id: "X-2")
            #expect(try await client.patch(x2, .object(["status": .string("completed")])).status == .ok)
            let export = try await client.merchant(.get, "/api/v1/orders/export")
            #expect(export.status == .ok)
            #expect(export.headers[.contentType] == "application/x-ndjson")
            let lines = export.lines
            #expect(lines.map { $0["orderIdentifier"]?.stringValue } == ["X-2", "X-1"], "newest first")
            #expect(lines.allSatisfy { $0["authenticationToken"] == nil && $0["updatedAt"] == nil && $0["webServiceURL"] == nil })
            #expect(lines.last?["assets"] == .object(["photo.png": .string(png.base64EncodedString())]))
            exported.withLock { $0 = String(buffer: export.body) }

            // Imported back where it came from: every order is unchanged.
            let back = try await client.importOrders([String(buffer: export.body)]).lines
            #expect(back.map { $0["result"]?.stringValue } == ["unchanged", "unchanged"])
            let other = try await client.merchant(.get, "/api/v1/orders/export?type=order.com.example.other")
            #expect(other.status == .ok && other.body.readableBytes == 0)
        }
        try await ServiceHarness(engine).run { client in
            let body = exported.withLock { $0 }
            let imported = try await client.importOrders([body]).lines
            #expect(imported.map { $0["result"]?.stringValue } == ["created", "created"])
            let again = try await client.merchant(.get, "/api/v1/orders/export")
            #expect(Set(String(buffer: again.body).split(separator: "\n")) == Set(body.split(separator: "\n")))
            // Real orders: signed, with the photo, for a device holding the new token.
            let order = try #require(try await client.store.order(type: Self.type, id: "X-1"))
            let fetched = try await client.fetch(ServiceHarness.OrderDetails(type: Self.type, id: "X-1", token: order.authenticationToken))
            #expect(fetched.status == .ok)
            let report = PackageVerifier.verify(Data(buffer: fetched.body), trustedRoots: [DevelopmentKeys.shared.chain.root])
            #expect(report.problems == [] && report.files.contains("photo.png"))
        }
    }

    @Test func anotherContentTypeIs415AndAMissingKeyIs401() async throws {
        try await ServiceHarness().run { client in
            let json = try await client.importOrders([Self.line("F-1")], contentType: "application/json")
            #expect(json.status == .unsupportedMediaType)
            #expect(json.headers[.contentType] == "application/json")
            #expect(json.json["error"]?.stringValue?.contains("application/x-ndjson") == true)
            let none = try await client.request(
                .post,
                "/api/v1/orders/import",
                headers: [.authorization: "Bearer \(ServiceHarness.merchantKey)"],
                body: Data(Self.line("F-1").utf8)
            )
            #expect(none.status == .unsupportedMediaType)
            #expect(try await client.store.order(type: Self.type, id: "F-1") == nil)
            // With parameters, and in capitals, it is the same type.
            let charset = try await client.importOrders([Self.line("F-1")], contentType: "Application/X-NDJSON; charset=utf-8")
            #expect(charset.lines.first?["result"] == .string("created"))
            for request in [
                try await client.request(.post, "/api/v1/orders/import", headers: [.contentType: "application/x-ndjson"]),
                try await client.request(.get, "/api/v1/orders/export"),
            ] {
                #expect(request.status == .unauthorized)
                #expect(request.json["error"] != nil)
            }
        }
    }

    @Test func aLineLongerThanAnOrderMayBeIsInvalidAndTheLinesAfterItAreImported() async throws {
        try await ServiceHarness().run { client in
            let long = Self.line("L-1") { $0["statusDescription"] = .string(String(repeating: "a", count: 8 * 1_024 * 1_024)) }
            let results = try await client.importOrders([long, Self.line("L-2")]).lines
            #expect(results.map { $0["result"]?.stringValue } == ["invalid", "created"])
            #expect(results.first?["orderIdentifier"] == .null)
            let message = results.first?["problems"]?.arrayValue?.first?["message"]?.stringValue ?? ""
            #expect(message.contains("longer than 8388608 bytes"), "\(message)")
        }
    }

    /// A chunk of a chunked request body.
    static func chunk(_ text: String) -> String {
        "\(String(text.utf8.count, radix: 16))\r\n\(text)\r\n"
    }

    static func importHead(expectingContinue: Bool = false) -> String {
        "POST /api/v1/orders/import HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ServiceHarness.merchantKey)\r\n"
            + "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n"
            + (expectingContinue ? "Expect: 100-continue\r\n" : "") + "\r\n"
    }

    @Test func theAnswerToALineComesBeforeTheBodyEndsAndAClientWaitingToSendItsBodyIsAskedFirst() async throws {
        try await ServiceHarness().run { client in
            let connection = try RawConnection(port: try #require(client.client.port))
            #expect(connection.send(Self.importHead(expectingContinue: true)))
            // The limits below only stop a broken server from holding the test for ever; nothing here is timed.
            var received = try await connection.receive(within: .seconds(60)) { $0.contains("\r\n\r\n") }
            #expect(received.hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"), "the interim answer comes before the final one")
            // One line, and the body still open: its result comes all the same.
            #expect(connection.send(Self.chunk(Self.line("S-1") + "\n")))
            received += try await connection.receive(within: .seconds(60)) { $0.contains(#""line":1"#) }
            #expect(received.contains("HTTP/1.1 200 OK"))
            #expect(received.contains(#"{"line":1,"orderIdentifier":"S-1","problems":[],"result":"created"}"#), "\(received)")
            #expect(!received.contains(#""line":2"#))
            #expect(connection.send(Self.chunk(Self.line("S-2") + "\n") + "0\r\n\r\n"))
            received += try await connection.receive(within: .seconds(60)) { $0.hasSuffix("\r\n0\r\n\r\n") }
            #expect(received.contains(#"{"line":2,"orderIdentifier":"S-2","problems":[],"result":"created"}"#), "\(received)")
            #expect(received.hasSuffix("\r\n0\r\n\r\n"), "the answer ends once the body has")
        }
    }

    @Test func anImportWhoseLinesKeepComingOutlastsTheBodyTimeout() async throws {
        var limits = ClientLimits()
        // Long enough for a busy test process to start the route: until it does, the body's deadline runs from the
        // head, as for any request.
        limits.bodyTimeout = .seconds(20)
        try await ServiceHarness().run(limits: limits) { client in
            let connection = try RawConnection(port: try #require(client.client.port))
            // Asked for the body, the client knows the route reads it as it comes.
            #expect(connection.send(Self.importHead(expectingContinue: true)))
            let interim = try await connection.receive(within: .seconds(60)) { $0.contains("\r\n\r\n") }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"))
            // Ten lines 3 s apart: 30 s in all, more than the body's deadline, never 20 s without a byte.
            let chunks = (1...10).map { Self.chunk(Self.line("T-\($0)") + "\n") } + ["0\r\n\r\n"]
            #expect(await connection.send(chunks, every: .seconds(3)), "every line was sent")
            let received = try await connection.receive(within: .seconds(60)) { $0.hasSuffix("\r\n0\r\n\r\n") }
            #expect(received.components(separatedBy: #""result":"created""#).count - 1 == 10, "\(received)")
        }
    }
}

extension ServiceHarness.Client {
    /// `POST /api/v1/orders/import` with `lines`, one per line.
    func importOrders(
        _ lines: [String],
        key: String = ServiceHarness.merchantKey,
        contentType: String = "application/x-ndjson"
    ) async throws -> TestResponse {
        try await request(
            .post,
            "/api/v1/orders/import",
            headers: [.authorization: "Bearer \(key)", .contentType: contentType],
            body: Data(lines.joined(separator: "\n").utf8)
        )
    }
}

extension TestResponse {
    /// The body's lines, each as JSON.
    var lines: [JSONValue] {
        String(buffer: body).split(separator: "\n").map { (try? JSONValue.parse(Data($0.utf8))) ?? .null }
    }
}
