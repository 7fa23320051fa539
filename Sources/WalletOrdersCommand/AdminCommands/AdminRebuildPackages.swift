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
        var configuration = try await options.configuration.load()
        if configuration.orderTypes.isEmpty,
            let development = try await ServiceBootstrap.developmentOrderType(configuration, create: false)
        {
            configuration.orderTypes = [development.type]
        }
        // The same loading and checks as serve: an order type whose signing files or template are unusable stops it.
        let report = await ServiceChecks.run(configuration, now: Date())
        guard report.orderTypes.count == configuration.orderTypes.count else {
            throw CommandFailure(report.problems.joined(separator: "\n"))
        }
        // Through the service, as the server writes: each order is read, signed outside any transaction, and stored
        // only if it is still at the version read, so the server keeps serving and writing meanwhile.
        let rebuilt = try await options.withStore { store in
            try await OrderService(
                store: StoreCapabilities(store),
                orderTypes: report.orderTypes,
                webServiceURL: configuration.webServiceURL,
                cacheCapacity: 0
            ).rebuildPackages()
        }
        try options.output(
            .object(["packagesRebuilt": .int(rebuilt)]),
            table: "rebuilt \(rebuilt) package\(rebuilt == 1 ? "" : "s") (orders of unconfigured types are left as they are)\n"
        )
    }
}
