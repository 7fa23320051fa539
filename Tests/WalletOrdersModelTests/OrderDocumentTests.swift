import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct OrderDocumentTests {
    @Test func unknownFieldsSurviveParsingAndWritingBack() throws {
        let text = """
            {"schemaVersion": 1, "futureField": {"nested": [1, 2.5, "x", null, true]},
             "merchant": {"displayName": "Shop", "brandColor": "#ff0000"}, "emoji": "caf\\u00e9 ☕️\\n"}
            """
        let document = try OrderDocument(data: Data(text.utf8))
        let again = try OrderDocument(data: document.serialized)
        #expect(again == document)
        #expect(again["futureField"]?["nested"] == .array([.int(1), .double(2.5), .string("x"), .null, .bool(true)]))
        #expect(again["merchant"]?["brandColor"] == .string("#ff0000"))
        #expect(again["emoji"] == .string("café ☕️\n"))
    }

    @Test func serializationIsDeterministicWithSortedKeys() throws {
        let a = try OrderDocument(data: Data(#"{"b": 1, "a": {"d": 2, "c": 3}}"#.utf8))
        let b = try OrderDocument(data: Data(#"{"a": {"c": 3, "d": 2}, "b": 1}"#.utf8))
        #expect(a.serialized == b.serialized)
        #expect(JSONValue.object(a.fields).serialized() == Data(#"{"a":{"c":3,"d":2},"b":1}"#.utf8))
    }

    @Test func defaultsFillGapsAndTheOrderWins() throws {
        let defaults = try JSONValue.parse(
            Data(#"{"merchant": {"displayName": "Default", "url": "https://a.example"}, "orderType": "ecommerce"}"#.utf8)
        )
        let order = OrderDocument(fields: ["merchant": .object(["displayName": .string("Mine")])])
        let merged = order.withDefaults(defaults)
        #expect(merged["merchant"] == .object(["displayName": .string("Mine"), "url": .string("https://a.example")]))
        #expect(merged["orderType"] == .string("ecommerce"))
    }

    @Test func mergePatchFollowsRFC7396() throws {
        // The examples of RFC 7396, appendix A.
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"a":1,"e":null}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (original, patch, expected) in cases {
            let result = try JSONValue.parse(Data(original.utf8)).merging(patch: JSONValue.parse(Data(patch.utf8)))
            #expect(result == (try JSONValue.parse(Data(expected.utf8))), "\(original) + \(patch)")
        }
    }

    @Test func invalidJSONSaysSo() {
        #expect(throws: JSONValue.ParseError.self) { try OrderDocument(data: Data("{\"a\": ".utf8)) }
        #expect(throws: JSONValue.ParseError.self) { try OrderDocument(data: Data("[1]".utf8)) }
    }

    @Test func theTypedViewReadsTheSampleOrder() throws {
        let order = try SampleOrder.document().typed()
        #expect(order.status == .open)
        #expect(order.merchant.logo == "logo.png")
        #expect(order.payment?.total.amount == .number(Decimal(string: "24.9")!))
        #expect(order.payment?.total.amount.value == Decimal(string: "24.9"))
        #expect(order.fulfillments?.first?.status == "onTheWay")
        #expect(order.lineItems?.first?.quantity == 2)
    }

    @Test func theTypedViewReadsAmountsAsWrittenAndFractionalQuantities() throws {
        let url = SampleOrder.fixturesFolder.appendingPathComponent("valid/apple-documented.json")
        let document = try OrderDocument(data: Data(contentsOf: url))
        let order = try document.typed()
        #expect(order.payment?.total.amount == .string("23.40"))
        #expect(order.payment?.total.amount.value == Decimal(string: "23.4"))
        #expect(order.payment?.summaryItems?.last?.value.amount == .number(Decimal(string: "3.4")!))
        #expect(order.lineItems?.first?.quantity == Decimal(string: "1.5"))
        #expect(order.merchant.logo == "logo")
        #expect(order.associatedApplications?.first?.launchURL == "myapp://orders/88")

        // Written back, a string stays a string with its digits, and a number stays a number.
        let again = try JSONValue.parse(JSONEncoder().encode(order))
        #expect(again["payment"]?["total"]?["amount"] == .string("23.40"))
        #expect(again["payment"]?["summaryItems"]?.arrayValue?.last?["value"]?["amount"] == .double(3.4))
        #expect(document.serialized == (try OrderDocument(data: document.serialized)).serialized)
        #expect(String(decoding: document.serialized, as: UTF8.self).contains(#""amount": "23.40""#))
    }

    @Test func theTypedViewReadsAQuantityWrittenAsADecimalString() throws {
        let url = SampleOrder.fixturesFolder.appendingPathComponent("valid/quantity-as-a-string.json")
        let order = try OrderDocument(data: Data(contentsOf: url)).typed()
        #expect(order.lineItems?.map(\.quantity) == [2, Decimal(0.5)])
    }

    @Test func theTypedViewRefusesAnAmountStringThatIsNotADecimal() {
        var fields = SampleOrder.json().objectValue!
        fields["payment"] = .object([
            "total": .object(["amount": .string("23,40"), "currency": .string("EUR")]), "status": .string("paid"),
        ])
        #expect(throws: DecodingError.self) { try OrderDocument(fields: fields).typed() }
    }
}
