import Foundation
import Testing
import WalletOrdersConformance
import WalletOrdersTesting

/// docs/conformance.md lists the rules the kit checks, each with its level and Apple's page.
@Suite(.timeLimit(.minutes(1))) struct ConformanceDocsTests {
    @Test func theGuideListsEveryRuleWithItsLevelAndPage() throws {
        let guide = try String(
            contentsOf: SampleOrder.repository.appendingPathComponent("docs/conformance.md"),
            encoding: .utf8
        )
        let rows = guide.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == Rule.all.count)
        for rule in Rule.all {
            let row = rows.first { $0.hasPrefix("| `\(rule.id)` |") }
            #expect(row?.contains("| \(rule.level.rawValue) |") == true, "\(rule.id): \(row ?? "missing")")
            #expect(row?.contains("(\(rule.page))") == true, "\(rule.id): \(row ?? "missing")")
        }
    }
}
