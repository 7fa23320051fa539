import Foundation
import WalletOrdersModel

/// The report as JUnit XML, for CI systems: one test case per rule, a failed rule as a `<failure>` whose type is its
/// level (a failed "should" shows there too, although it does not fail the run), a skipped rule as `<skipped>`.
extension ConformanceReport {
    /// The report as a JUnit XML document.
    public var junit: String {
        let failures = count(.fail)
        let skipped = count(.skipped)
        let suite = EscapedText.xml(target)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="wallet-orders conformance" tests="\(results.count)" failures="\(failures)" skipped="\(skipped)">
              <testsuite name="\(suite)" tests="\(results.count)" failures="\(failures)" skipped="\(skipped)" errors="0" \
            timestamp="\(RFC3339.format(started))">

            """
        for result in results {
            let area = result.rule.id.split(separator: ".").first.map(String.init) ?? result.rule.id
            let name = EscapedText.xml("\(result.rule.id): \(result.rule.title)")
            let opening = "    <testcase classname=\"wallet-orders.conformance.\(area)\" name=\"\(name)\""
            switch result.status {
            case .pass:
                xml += "\(opening)/>\n"
            case .skipped:
                xml += "\(opening)>\n      <skipped message=\"\(EscapedText.xml(result.detail))\"/>\n    </testcase>\n"
            case .fail:
                let body = """
                    Apple: "\(result.rule.requirement)" (\(result.rule.page))
                    Check: \(result.rule.check)
                    Server: \(result.detail)
                    """
                xml += "\(opening)>\n"
                xml += "      <failure type=\"\(result.rule.level.rawValue)\" message=\"\(EscapedText.xml(result.detail))\">"
                xml += EscapedText.xml(body) + "</failure>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
