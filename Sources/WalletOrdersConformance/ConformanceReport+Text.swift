import Foundation
import WalletOrdersModel

/// The report for a person at a terminal: a table of every rule, then each failure with Apple's words and what the
/// server answered. Every text that came from the server is escaped.
extension ConformanceReport {
    /// The report as lines of text.
    public var text: String {
        var lines: [String] = []
        lines.append("Wallet Orders conformance: \(EscapedText.terminal(target))")
        lines.append(
            "\(results.count) rules: \(count(.pass)) passed, \(count(.fail)) failed, \(count(.skipped)) skipped "
                + "(started \(RFC3339.format(started)))"
        )
        lines.append("")
        let width = results.map(\.rule.id.count).max() ?? 0
        for result in results {
            let status = result.status == .fail ? "FAIL" : result.status.rawValue
            let id = result.rule.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let detail = EscapedText.terminal(EscapedText.excerpt(result.detail, limit: 110))
            let columns =
                status.padding(toLength: 9, withPad: " ", startingAt: 0)
                + result.rule.level.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            lines.append("  \(columns)\(id)  \(detail)")
        }
        let failures = results.filter { $0.status == .fail }
        if !failures.isEmpty {
            lines.append("")
            lines.append("What failed:")
            for result in failures {
                lines.append("")
                lines.append("  \(result.rule.id) (\(result.rule.level.rawValue)): \(result.rule.title)")
                lines.append("    Apple:  \"\(result.rule.requirement)\"")
                lines.append("            \(result.rule.page)")
                lines.append("    Check:  \(result.rule.check)")
                lines.append("    Server: \(EscapedText.terminal(result.detail))")
            }
        }
        if timings.command != nil || timings.push != nil || timings.fetch != nil {
            lines.append("")
            var parts: [String] = []
            if let command = timings.command { parts.append("the command returned after \(ConformanceRun.milliseconds(command))") }
            if let push = timings.push { parts.append("the push arrived after \(ConformanceRun.milliseconds(push))") }
            if let fetch = timings.fetch { parts.append("the device had the new version after \(ConformanceRun.milliseconds(fetch))") }
            lines.append("Update: " + parts.joined(separator: "; ") + ".")
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append("Notes:")
            for note in notes { lines.append("  - \(EscapedText.terminal(note))") }
        }
        lines.append("")
        let failedMusts = results.filter(\.failsTheRun).count
        lines.append(
            passed
                ? "PASS: every \"must\" rule passed\(count(.skipped) > 0 ? " or was skipped" : "")."
                : "FAIL: \(failedMusts) \"must\" rule\(failedMusts == 1 ? "" : "s") failed."
        )
        return lines.joined(separator: "\n") + "\n"
    }
}
