import Foundation
import Testing
import WalletOrdersConformance
import WalletOrdersModel
import WalletOrdersTesting

/// The three forms of the report: what a terminal shows, JSON for scripts, JUnit XML for CI.
@Suite(.timeLimit(.minutes(2))) struct ConformanceReportTests {
    /// A report with a failed must that quotes a hostile server, a failed should, a pass and a skipped rule.
    static let report = ConformanceReport(
        target: "order.com.example / A-1001 at https://shop.example",
        started: Date(timeIntervalSince1970: 1_795_342_530),
        results: [
            RuleResult(rule: .fetchStatus, status: .pass, detail: "GET /v1/orders/order.com.example/A-1001 → 200, 1234 bytes"),
            RuleResult(
                rule: .listingLastModifiedString,
                status: .fail,
                detail: "lastModified is a JSON number: 42 \u{1B}]0;pwned\u{07}\u{1B}[31m<b>&\"\u{202E}"
            ),
            RuleResult(rule: .fetchHead, status: .fail, detail: "HEAD /v1/orders/… → 405"),
            RuleResult(rule: .pushArrives, status: .skipped, detail: "needs --apns"),
        ],
        timings: .init(command: .milliseconds(120), push: .milliseconds(180), fetch: .milliseconds(250)),
        notes: ["--update exited 0 in 120.0 ms"]
    )

    @Test func theTableEscapesWhatTheServerSentAndSaysWhatFailedInApplesWords() {
        let text = Self.report.text
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0.value == 0x202E })
        #expect(text.contains(#"\u{1B}]0;pwned\u{7}\u{1B}[31m"#), "\(text)")
        #expect(text.contains("listing.lastModifiedString (must): lastModified is a string"))
        #expect(text.contains("Apple:  \"\(Rule.listingLastModifiedString.requirement)\""))
        #expect(text.contains(Rule.listingLastModifiedString.page))
        #expect(text.contains("the device had the new version after 250.0 ms"))
        #expect(text.hasSuffix("FAIL: 1 \"must\" rule failed.\n"), "\(text)")
        #expect(!Self.report.passed, "a failed must fails the run; a failed should alone would not")
    }

    @Test func theJSONHoldsEveryRuleWithItsStatusAndApplesPage() throws {
        let json = try JSONValue.parse(Self.report.json.serialized())
        #expect(json["passed"] == .bool(false))
        #expect(json["summary"] == .object(["pass": .int(1), "fail": .int(2), "skipped": .int(1)]))
        #expect(Self.report.json["timings"]?["fetchMilliseconds"] == .double(250))
        let rules = try #require(json["rules"]?.arrayValue)
        #expect(rules.map { $0["id"]?.stringValue } == Self.report.results.map(\.rule.id))
        #expect(rules[1]["status"] == .string("fail") && rules[1]["level"] == .string("must"))
        #expect(rules[1]["page"] == .string(Rule.listingLastModifiedString.page))
    }

    @Test func theJUnitReportIsWellFormedXMLWithAFailurePerFailedRule() async throws {
        let folder = try TemporaryDirectory("junit")
        let path = try folder.write("report.xml", Data(Self.report.junit.utf8))
        let parsed = try await Command.run(
            "python3",
            [
                "-c",
                """
                import sys, xml.dom.minidom
                document = xml.dom.minidom.parse(sys.argv[1])
                cases = document.getElementsByTagName('testcase')
                print(len(cases), len(document.getElementsByTagName('failure')), len(document.getElementsByTagName('skipped')))
                print([f.getAttribute('type') for f in document.getElementsByTagName('failure')])
                """,
                path,
            ]
        )
        #expect(parsed.status == 0, "\(parsed.error)\n\(Self.report.junit)")
        #expect(parsed.output == "4 2 1\n['must', 'should']\n", "\(parsed.output)")
    }
}
