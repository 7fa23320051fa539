import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminPrune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete registrations whose pushes failed for good, and old device logs."
    )

    @OptionGroup var options: AdminOptions
    @Flag(help: "Delete registrations whose last push failed permanently.") var failedRegistrations = false
    @Option(help: "Delete device log entries older than this many days.") var logsOlderThan: Int?

    func validate() throws {
        guard failedRegistrations || logsOlderThan != nil else {
            throw ValidationError("say what to prune: --failed-registrations, --logs-older-than DAYS, or both")
        }
        if let days = logsOlderThan, days < 0 { throw ValidationError("--logs-older-than takes a number of days, 0 or more") }
    }

    func run() async throws {
        var result: [String: JSONValue] = [:]
        var lines: [String] = []
        try await options.withService { offline in
            if failedRegistrations {
                let removed = try await offline.service.pruneFailedRegistrations()
                result["registrationsRemoved"] = .int(removed)
                lines.append("removed \(removed) registration\(removed == 1 ? "" : "s") whose pushes failed")
            }
            if let days = logsOlderThan {
                let removed = try await offline.service.pruneLogs(olderThan: Double(days) * 86_400)
                result["logsRemoved"] = .int(removed)
                lines.append("removed \(removed) device log entr\(removed == 1 ? "y" : "ies") older than \(days) days")
            }
        }
        try options.output(.object(result), table: lines.joined(separator: "\n") + "\n")
    }
}
