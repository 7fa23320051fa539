import Foundation
import WalletOrdersModel

/// The report as JSON, for scripts: `{"target", "started", "passed", "summary", "timings", "notes", "rules": [...]}`,
/// each rule with its id, level, title, status, detail, Apple's words, page and check.
extension ConformanceReport {
    /// The report as a JSON value.
    public var json: JSONValue {
        var timings: [String: JSONValue] = [:]
        if let command = self.timings.command { timings["commandMilliseconds"] = .double(Self.milliseconds(command)) }
        if let push = self.timings.push { timings["pushMilliseconds"] = .double(Self.milliseconds(push)) }
        if let fetch = self.timings.fetch { timings["fetchMilliseconds"] = .double(Self.milliseconds(fetch)) }
        return .object([
            "target": .string(target),
            "started": .string(RFC3339.format(started)),
            "passed": .bool(passed),
            "summary": .object([
                "pass": .int(count(.pass)), "fail": .int(count(.fail)), "skipped": .int(count(.skipped)),
            ]),
            "timings": .object(timings),
            "notes": .array(notes.map(JSONValue.string)),
            "rules": .array(
                results.map { result in
                    .object([
                        "id": .string(result.rule.id),
                        "level": .string(result.rule.level.rawValue),
                        "title": .string(result.rule.title),
                        "status": .string(result.status.rawValue),
                        "detail": .string(result.detail),
                        "requirement": .string(result.rule.requirement),
                        "page": .string(result.rule.page),
                        "check": .string(result.rule.check),
                    ])
                }
            ),
        ])
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let value = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return (value * 10).rounded() / 10
    }
}
