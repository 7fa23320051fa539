import Foundation
import Testing
import WalletOrdersConformance

/// The kit against a web service written to be wrong in one way at a time: each rule fails when its fault is on and
/// passes when it is off, and no other rule fails with it (the rules that depend on it are skipped).
@Suite(.timeLimit(.minutes(10))) struct ConformanceFaultTests {
    @Test func everyRuleHasAFaultThatMakesItFail() {
        #expect(Set(Fault.allCases.map(\.rawValue)) == Set(Rule.all.map(\.id)))
        #expect(Rule.all.count == Set(Rule.all.map(\.id)).count, "rule identifiers are unique")
        for rule in Rule.all {
            #expect(rule.page.hasPrefix("https://developer.apple.com/documentation/walletorders"), "\(rule.id)")
            #expect(rule.dependencies.allSatisfy { Rule.named($0) != nil }, "\(rule.id)")
        }
    }

    @Test func aServiceWithoutFaultsPassesEveryRule() async throws {
        let report = try await FaultyWebService.conformanceReport(fault: nil)
        for result in report.results {
            #expect(result.status == .pass, "\(result)")
        }
        #expect(report.passed)
        #expect(report.timings.push != nil && report.timings.fetch != nil)
        #expect(!report.text.contains("FAIL"), "\(report.text)")
    }

    /// Certificate authentication to APNs passes with the Order Type ID certificate, and fails with another order
    /// type's certificate under the same root (as an app's push certificate would).
    @Test(arguments: [true, false])
    func aPushAuthenticatedByCertificatePassesOnlyWithTheOrderTypesCertificate(ownType: Bool) async throws {
        let report = try await FaultyWebService.conformanceReport(fault: nil, credential: .certificate(ownType: ownType))
        let authentication = try #require(report.result(Rule.pushAuthentication.id))
        #expect(authentication.status == (ownType ? .pass : .fail), "\(authentication)")
        #expect(authentication.detail.contains("TLS client certificate"), "\(authentication)")
        for result in report.results where result.rule != .pushAuthentication {
            #expect(result.status == .pass, "\(result)")
        }
    }

    @Test(arguments: Fault.allCases)
    func aFaultFailsItsRuleAndNoOther(fault: Fault) async throws {
        let report = try await FaultyWebService.conformanceReport(fault: fault)
        let faulted = try #require(report.result(fault.rawValue))
        #expect(faulted.status == .fail, "\(faulted)\n\(report.text)")
        let dependents = Self.dependents(of: fault.rawValue)
        for result in report.results where result.rule.id != fault.rawValue {
            if dependents.contains(result.rule.id) {
                #expect(result.status != .fail, "\(result) depends on \(fault.rawValue)")
            } else {
                #expect(result.status == .pass, "\(result)")
            }
        }
        #expect(report.passed == (faulted.rule.level == .should))
    }

    /// The rules that depend on `id`, directly or through others.
    static func dependents(of id: String) -> Set<String> {
        var found: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for rule in Rule.all where !found.contains(rule.id) {
                if rule.dependencies.contains(where: { $0 == id || found.contains($0) }) {
                    found.insert(rule.id)
                    changed = true
                }
            }
        }
        return found
    }
}
