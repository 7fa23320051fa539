import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersSchemas
import WalletOrdersTesting

/// Sources/WalletOrdersSchemas/order.schema.json and `OrderValidator` give the same verdict, order by order: every fixture in
/// Tests/Fixtures/orders and thousands of mutations of a complete order go to the validator and to an independent
/// Draft 2020-12 validator (Python's jsonschema, through Tests/schema/judge.sh).
///
/// The rules a schema cannot state are left out of the comparison by name (`OrderRule`), and the last test shows
/// each of them at work in the validator alone.
@Suite(.timeLimit(.minutes(5))) struct OrderSchemaAgreementTests {
    /// Left out of the comparison: a JSON Schema cannot compare two values or see the package.
    static let rulesBeyondTheSchema: [OrderRule] = [.updatedAtNotBeforeCreatedAt, .referencedFilesInPackage]

    @Test func theSchemaAndTheValidatorGiveTheSameVerdictOnEveryOrderOfTheCorpus() async throws {
        let corpus = try Corpus.fixtures() + Corpus.composites() + Corpus.mutations()
        #expect(Set(corpus.map(\.name)).count == corpus.count, "case names are unique")
        #expect(corpus.count >= 3_000)
        let python = try await Judge.python(corpus)

        var disagreements: [String] = []
        var validCount = 0
        for order in corpus {
            let swift = OrderValidator.validate(order.order, skipping: Set(Self.rulesBeyondTheSchema))
            guard let schema = python[order.name] else {
                disagreements.append("\(order.name): no verdict from jsonschema")
                continue
            }
            if swift.isValid { validCount += 1 }
            if swift.isValid != schema.valid {
                disagreements.append(
                    "\(order.name): validator says "
                        + (swift.isValid ? "valid" : "invalid (\(swift.problems.first!))")
                        + ", schema says " + (schema.valid ? "valid" : "invalid (\(schema.error ?? ""))")
                )
            }
            if let expected = order.expected, expected != swift.isValid {
                disagreements.append("\(order.name): expected \(expected ? "valid" : "invalid"), both say otherwise")
            }
        }
        let report = disagreements.prefix(40).joined(separator: "\n")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(corpus.count) disagree:\n\(report)")
        // Both verdicts come up often, so neither side can pass by saying the same thing every time.
        #expect(validCount > corpus.count / 5)
        #expect(corpus.count - validCount > corpus.count / 3)
    }

    @Test func rulesTheSchemaCannotStateAreListedByNameAndHeldByTheValidatorAlone() async throws {
        #expect(OrderRule.allCases == Self.rulesBeyondTheSchema)
        let base = try Corpus.fixture("valid/every-object.json")
        let cases: [(OrderRule, JSONValue, Set<String>?)] = [
            (.updatedAtNotBeforeCreatedAt, base.merging(patch: .object(["updatedAt": .string("2026-11-19T00:00:00Z")])), nil),
            (.referencedFilesInPackage, base, ["logo.png"]),
        ]
        let python = try await Judge.python(cases.map { Corpus.Case(name: $0.0.rawValue, order: $0.1) })
        for (rule, order, files) in cases {
            #expect(python[rule.rawValue]?.valid == true, "the schema accepts the \(rule) case")
            #expect(!OrderValidator.validate(order, files: files).isValid, "the validator refuses the \(rule) case")
            #expect(OrderValidator.validate(order, files: files, skipping: [rule]).isValid, "\(rule) alone refuses it")
        }
    }

    @Test func theServedSchemaIsTheRepositoryFileAndADraft2020_12Schema() throws {
        let file = try Data(contentsOf: Corpus.repository.appendingPathComponent("Sources/WalletOrdersSchemas/order.schema.json"))
        #expect(OrderSchema.data == file)
        let schema = try JSONValue.parse(OrderSchema.data)
        #expect(schema["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        #expect(OrderSchema.path == "/schemas/order.json")
        #expect(OrderSchema.contentType == "application/schema+json")
    }
}

/// The orders both validators judge.
enum Corpus {
    struct Case {
        let name: String
        let order: JSONValue
        /// The verdict the case must get, where the corpus knows it.
        var expected: Bool? = nil
    }

    static var repository: URL {
        SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()
    }

    static func fixture(_ path: String) throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: SampleOrder.fixturesFolder.appendingPathComponent(path)))
    }

    /// Every file in Tests/Fixtures/orders, valid/ ones expected valid and invalid/ ones invalid, and the sample order.
    static func fixtures() throws -> [Case] {
        var cases = [Case(name: "SampleOrder", order: SampleOrder.json(), expected: true)]
        for folder in ["valid", "invalid"] {
            let names = try FileManager.default
                .contentsOfDirectory(atPath: SampleOrder.fixturesFolder.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".json") }.sorted()
            #expect(!names.isEmpty)
            for name in names {
                cases.append(
                    Case(
                        name: "\(folder)/\(name)",
                        order: try fixture("\(folder)/\(name)"),
                        expected: folder == "valid"
                    )
                )
            }
        }
        return cases
    }

    /// Orders whose verdict depends on more than one member.
    static func composites() throws -> [Case] {
        let base = try requiredBase()
        func with(_ members: [String: JSONValue]) -> JSONValue { .object(base.objectValue!.merging(members) { $1 }) }
        let shipping: [String: JSONValue] = [
            "fulfillmentType": .string("shipping"), "fulfillmentIdentifier": .string("s"), "status": .string("open"),
        ]
        let pickup: [String: JSONValue] = [
            "fulfillmentType": .string("pickup"), "fulfillmentIdentifier": .string("p"), "status": .string("open"),
            "displayName": .string("Store"),
        ]
        let total: JSONValue = .object(["amount": .string("1.00"), "currency": .string("EUR")])
        return [
            Case(
                name: "version 2 without payment.status",
                order: with(["schemaVersion": .int(2), "payment": .object(["total": total])]),
                expected: true
            ),
            Case(
                name: "version 1 without payment.status",
                order: with(["payment": .object(["total": total])]),
                expected: false
            ),
            Case(
                name: "version 1 with a null payment.status",
                order: with(["payment": .object(["total": total, "status": .null])]),
                expected: false
            ),
            Case(name: "version 2.0 as a fraction", order: with(["schemaVersion": .double(2)]), expected: true),
            Case(
                name: "web service without token",
                order: with(["webServiceURL": .string("https://example.com/w")]),
                expected: false
            ),
            Case(
                name: "token without web service",
                order: with(["authenticationToken": .string("0123456789abcdef")]),
                expected: false
            ),
            Case(
                name: "web service with a null token",
                order: with(["webServiceURL": .string("https://example.com/w"), "authenticationToken": .null]),
                expected: false
            ),
            Case(
                name: "shipping with pickup members it does not read",
                order: with([
                    "fulfillments": .array([
                        .object(
                            shipping.merging([
                                "pickupWindowDuration": .string("soon"), "displayName": .int(5), "location": .string("here"),
                            ]) { $1 }
                        )
                    ])
                ]),
                expected: true
            ),
            Case(
                name: "pickup with shipping members it does not read",
                order: with([
                    "fulfillments": .array([
                        .object(
                            pickup.merging([
                                "trackingURL": .string("nope"), "estimatedDeliveryWindowDuration": .string("soon"),
                                "recipient": .int(1),
                            ]) { $1 }
                        )
                    ])
                ]),
                expected: true
            ),
            Case(
                name: "pickup without a display name",
                order: with(["fulfillments": .array([.object(pickup.filter { $0.key != "displayName" })])]),
                expected: false
            ),
            Case(
                name: "fulfillment without a type",
                order: with(["fulfillments": .array([.object(shipping.filter { $0.key != "fulfillmentType" })])]),
                expected: false
            ),
            Case(
                name: "application store identifier 1.0",
                order: with(["associatedApplications": .array([.object(["storeIdentifier": .double(1)])])]),
                expected: true
            ),
            Case(
                name: "application store identifier 1.5",
                order: with(["associatedApplications": .array([.object(["storeIdentifier": .double(1.5)])])]),
                expected: false
            ),
        ]
    }

    /// every-object.json cut to the members an order needs.
    static func requiredBase() throws -> JSONValue {
        let full = try fixture("valid/every-object.json").objectValue!
        let required = [
            "schemaVersion", "orderTypeIdentifier", "orderIdentifier", "orderType", "orderManagementURL",
            "createdAt", "updatedAt", "status", "merchant",
        ]
        return .object(full.filter { required.contains($0.key) })
    }

    /// Mutations of every-object.json, one section at a time over the required members (a small order judges
    /// faster): every member removed, set to null and to every JSON type; every string set to probes chosen by
    /// what the member holds, plus a few from every other kind; numbers, arrays and objects varied.
    static func mutations() throws -> [Case] {
        let full = try fixture("valid/every-object.json").objectValue!
        let base = try requiredBase()
        var sections: [(String, JSONValue, [Step])] = [("required", base, [])]
        let together = ["webServiceURL", "authenticationToken"]
        for key in full.keys.sorted() where base[key] == nil && key != "authenticationToken" {
            var members = base.objectValue!
            for member in key == "webServiceURL" ? together : [key] { members[member] = full[member] }
            sections.append((key, .object(members), key == "webServiceURL" ? [] : [.key(key)]))
        }
        var cases: [Case] = []
        var leaf = 0
        for (section, order, prefix) in sections {
            for (path, value) in nodes(of: order) where path.starts(with: prefix) {
                // The required members are mutated once, in their own section.
                if section != "required", prefix.isEmpty, base[path.first!.key!] != nil { continue }
                let label = "\(section): \(describe(path))"
                func add(_ probe: String, _ replacement: JSONValue?) {
                    cases.append(Case(name: "\(label) ← \(probe)", order: replacing(order, at: path[...], with: replacement)))
                }
                if case .key = path.last { add("removed", nil) }
                for probe in typeProbes where probe != value { add(describe(probe), probe) }
                switch value {
                case .string:
                    let key = path.last!.key ?? path.dropLast().last!.key!
                    let own = Probes.targeted(for: key)
                    let others = Probes.all.filter { !own.contains($0) }
                    let rotating = (0..<4).map { others[(leaf * 7 + $0 * 31) % others.count] }
                    leaf += 1
                    for probe in own + rotating where probe != value.stringValue && !typeProbes.contains(.string(probe)) {
                        add(describe(.string(probe)), .string(probe))
                    }
                case .int, .double:
                    for probe in numberProbes where probe != value { add(describe(probe), probe) }
                case .array(let elements):
                    if let first = elements.first { add("first element again", .array(elements + [first])) }
                    add("null element", .array(elements + [.null]))
                case .object(let members):
                    add("unknown member", .object(members.merging(["futureField": .int(1)]) { $1 }))
                default:
                    break
                }
            }
        }
        return cases
    }

    static let typeProbes: [JSONValue] = [
        .null, .bool(true), .int(0), .int(-1), .int(12), .double(1.5), .string("x"), .string(""), .array([]),
        .object([:]),
    ]

    static let numberProbes: [JSONValue] = [
        .int(1), .int(2), .double(0.5), .double(-0.5), .double(1e-9), .double(1e20), .int(999_999_999_999_999),
        .int(1_000_000_000_000_000), .double(90.5), .double(-90), .double(-180), .double(180.0001), .string("1"),
        .string("0.5"), .string("0"), .string("0.00"), .string("-1"), .string("1e3"), .string(" 2"),
        .string(String(repeating: "9", count: 32)), .string(String(repeating: "9", count: 33)),
    ]

    // MARK: - Paths into a JSON value

    enum Step: Equatable {
        case key(String)
        case index(Int)

        var key: String? { if case .key(let key) = self { key } else { nil } }
    }

    static func nodes(of value: JSONValue, at path: [Step] = []) -> [([Step], JSONValue)] {
        var found: [([Step], JSONValue)] = path.isEmpty ? [] : [(path, value)]
        switch value {
        case .object(let members):
            for key in members.keys.sorted() { found += nodes(of: members[key]!, at: path + [.key(key)]) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { found += nodes(of: element, at: path + [.index(index)]) }
        default:
            break
        }
        return found
    }

    /// `root` with the value at `path` replaced, or removed when `value` is nil.
    static func replacing(_ root: JSONValue, at path: ArraySlice<Step>, with value: JSONValue?) -> JSONValue {
        guard let step = path.first else { return value ?? .null }
        switch (step, root) {
        case (.key(let key), .object(var members)):
            if path.count == 1, value == nil {
                members.removeValue(forKey: key)
            } else {
                members[key] = replacing(members[key] ?? .null, at: path.dropFirst(), with: value)
            }
            return .object(members)
        case (.index(let index), .array(var elements)):
            elements[index] = replacing(elements[index], at: path.dropFirst(), with: value ?? .null)
            return .array(elements)
        default:
            return root
        }
    }

    static func describe(_ path: [Step]) -> String {
        path.enumerated().map { offset, step in
            switch step {
            case .key(let key): offset == 0 ? key : ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }.joined()
    }

    static func describe(_ value: JSONValue) -> String {
        let text = String(decoding: value.serialized(), as: UTF8.self)
        let scalars = text.unicodeScalars.count
        return scalars > 48 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(40))) + "…(\(scalars))" : text
    }
}

/// Strings to put where an order holds a string.
enum Probes {
    static let dates = [
        "2026-11-22T10:15:30Z", "2026-11-22t10:15:30.5z", "2026-11-22 10:15:30Z", "2024-02-29T00:00:00+01:00",
        "2023-02-29T00:00:00Z", "2000-02-29T23:59:60-12:59", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T10:15:30", "2026-11-22T10:15:30.Z", "2026-11-22T10:15:30+0100",
        "2026-11-22", "2026-11-22T10:15:30Z\n", "2026-11-22T10:15:30+24:00", "２026-11-22T10:15:30Z",
    ]
    static let durations = [
        "PT30M", "P1D", "P1DT12H", "PT0.5S", "PT1,5S", "P2W", "P1Y2M3DT4H5M6S", "P1W2D", "PT", "P", "P1DT",
        "30 minutes", "pt30m", "P1.5D", "PT1H\n", "-PT1H", "P1D1Y",
    ]
    static let urls = [
        "https://shop.example.com/a?b=c#d", "http://shop.example.com", "HTTPS://EXAMPLE.COM", "Http://example.com:",
        "https://[::1]:8443/x", "https://[]/", "https://user:pw@host:80/", "https://a@b@c", "https://", "https://:80",
        "https://host:8o", "ftp://example.com", "myapp://orders/88", "myapp:x", "myapp:", "2app://x",
        "shop.example.com/orders", "https://exa mple.com", "https://example.com/été", "https://bücher.example/",
        "https://example.com/\n", "mailto:help@example.com", "https://exa]mple.com", "https://example.com?q",
        "https://example.com\u{7f}", "https://e.com/" + String(repeating: "a", count: 2_034),
        "https://e.com/" + String(repeating: "a", count: 2_035),
    ]
    static let files = [
        "logo", "logo.png", "logo.JPEG", "logo.jpg", "logo@2x", "label.pdf", ".hidden", ".png", "en.lproj/logo.png",
        "a\\b.png", "logo.gif", "logo.", "brand.logo", "logo\n", "\u{3000}", "日本", "logo.png\u{301}",
        String(repeating: "a", count: 196) + ".png", String(repeating: "a", count: 197) + ".png",
    ]
    static let decimals = [
        "23.40", "-5", "0", "007.50", "23,40", "1e3", ".5", "5.", "+1", "23.40\n", "1.2.3", "-", "١٢",
        "-" + String(repeating: "9", count: 28) + ".99", String(repeating: "9", count: 30) + ".99",
    ]
    static let currencies = ["EUR", "eur", "USD ", "XXX", "ZWG", "JP"]
    static let identifiers = [
        "A-1001", "a.b_c:d~e", "a/b", "a b", "é", String(repeating: "x", count: 128), String(repeating: "x", count: 129),
        ".", "..", "...", "..a",
    ]
    static let countryCodes = ["US", "us", "U", "USA", "  ", "é1", "\u{3000}A"]
    static let tokens = [
        String(repeating: "t", count: 15), String(repeating: "t", count: 16), String(repeating: "t", count: 256),
        String(repeating: "t", count: 257), String(repeating: " ", count: 16),
    ]
    static let words = [
        "open", "completed", "shipping", "pickup", "qr", "code128", "purchase", "refund", "approved", "readyForPickup",
        "onTheWay", "enabled", "delivery", "Open", "ecommerce",
    ]
    static let texts = [
        "x", "", " ", "  \t\n", "\u{a0}", "\u{3000}x", "café", "ab", "\u{1F600}", "\u{1c}",
        String(repeating: "a", count: 64), String(repeating: "a", count: 65), String(repeating: "a", count: 256),
        String(repeating: "a", count: 257), String(repeating: "a", count: 4_096), String(repeating: "a", count: 4_097),
        // 256 scalars but 128 characters, and 258 scalars but 129 characters: limits count scalars, as JSON Schema does.
        String(repeating: "e\u{301}", count: 128), String(repeating: "e\u{301}", count: 129),
    ]

    static let all =
        dates + durations + urls + files + decimals + currencies + identifiers + countryCodes + tokens
        + words + texts

    /// The probes for a member named `key`, by what such a member holds.
    static func targeted(for key: String) -> [String] {
        switch key {
        case _ where key.hasSuffix("URL"): urls
        case _ where key.hasSuffix("Duration"): durations
        case _ where key.hasSuffix("At"), "returnDeadline", "dropOffBy": dates
        case "logo", "image", "trackingLogoNameLightColorScheme", "trackingLogoNameDarkColorScheme", "receipt",
            "returnLabel":
            files
        case "amount": decimals
        case "currency": currencies
        case "orderTypeIdentifier", "orderIdentifier": identifiers
        case "countryCode": countryCodes
        case "authenticationToken": tokens
        default: words + texts
        }
    }
}

/// The other side: Python's jsonschema, Draft 2020-12, reading the schema the service serves.
enum Judge {
    struct Verdict {
        let valid: Bool
        let error: String?
    }

    /// The verdict on each case, by name.
    static func python(_ cases: [Corpus.Case]) async throws -> [String: Verdict] {
        let folder = try TemporaryDirectory("schema-agreement")
        let schema = try folder.write("order.schema.json", OrderSchema.data)
        var lines = Data()
        for order in cases {
            lines.append(JSONValue.object(["name": .string(order.name), "order": order.order]).serialized())
            lines.append(UInt8(ascii: "\n"))
        }
        let corpus = try folder.write("corpus.jsonl", lines)
        let script = Corpus.repository.appendingPathComponent("Tests/schema/judge.sh").path
        let result = try await Command.run("bash", [script, schema, corpus])
        #expect(result.status == 0, "judge.sh failed: \(result.error)")
        var verdicts: [String: Verdict] = [:]
        for line in result.output.split(separator: "\n") {
            let answer = try JSONValue.parse(Data(line.utf8))
            guard let name = answer["name"]?.stringValue else { continue }
            verdicts[name] = Verdict(valid: answer["valid"] == .bool(true), error: answer["error"]?.stringValue)
        }
        #expect(verdicts.count == cases.count, "jsonschema judged \(verdicts.count) of \(cases.count) orders")
        return verdicts
    }
}
