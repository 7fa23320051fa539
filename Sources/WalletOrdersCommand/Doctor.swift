import ArgumentParser
import Foundation
import WalletOrdersApplication

/// `wallet-orders doctor`: the start-up checks `serve` makes, printed, without starting anything.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a configuration as serve does at start, without starting: certificates, keys, APNs, database.",
        discussion: "Prints one line per check and exits 1 when serve would refuse to start."
    )

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        var configuration = try await options.load()
        var findings: [CheckFinding] = []
        if configuration.orderTypes.isEmpty {
            do {
                if let development = try await ServiceBootstrap.developmentOrderType(configuration, create: false) {
                    configuration.orderTypes = [development.type]
                    findings.append(
                        CheckFinding(
                            level: .ok,
                            message: "no order type configured: serve uses the "
                                + "development keys beside the database (not trusted by real devices)"
                        )
                    )
                } else {
                    findings.append(
                        CheckFinding(
                            level: .ok,
                            message: "no order type configured: serve will make "
                                + "development keys beside the database (not trusted by real devices)"
                        )
                    )
                }
            } catch let error as ConfigurationError {
                findings.append(CheckFinding(level: .problem, message: error.description))
            }
        }
        findings += await ServiceChecks.run(configuration, now: Date()).findings
        for finding in findings { print(finding) }
        if findings.contains(where: { $0.level == .problem }) {
            throw ExitCode(1)
        }
    }
}
