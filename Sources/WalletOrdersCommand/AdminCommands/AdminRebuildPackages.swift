import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminRebuildPackages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild-packages",
        abstract: "Sign every order's package again with the configured certificates (after a renewal)."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        // Through the service, as the server writes: each order is read, signed outside any transaction, and stored
        // only if it is still at the version read, so the server keeps serving and writing meanwhile. The same
        // loading and checks as serve: an order type whose signing files or template are unusable stops it.
        let rebuilt = try await options.withService { offline in
            guard offline.problems.isEmpty else { throw CommandFailure(offline.problems.joined(separator: "\n")) }
            return try await offline.service.rebuildPackages()
        }
        try options.output(
            .object(["packagesRebuilt": .int(rebuilt)]),
            table: "rebuilt \(rebuilt) package\(rebuilt == 1 ? "" : "s") (orders of unconfigured types are left as they are)\n"
        )
    }
}
