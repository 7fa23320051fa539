import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminRegistrations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registrations",
        abstract: "Device registrations, newest first, by device or by order."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "Only this device.") var device: String?
    @Option(help: "Only this order type.") var type: String?
    @Option(help: "Only this order (with --type).") var order: String?
    @Option(help: "At most this many.") var limit = 100

    func run() async throws {
        let registrations = try await options.withService { offline in
            try await offline.service.registrations(
                RegistrationFilter(device: device, type: type, id: order),
                limit: max(1, min(limit, 10_000))
            )
        }
        try options.output(
            .object(["registrations": try JSONValue.encoding(registrations)]),
            table: AdminOrder.registrationTable(registrations).text
        )
    }
}
