import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminResend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resend",
        abstract: "Queue a push to every device registered for an order again."
    )

    @OptionGroup var options: AdminOptions
    @Argument(help: "The order type identifier.") var type: String
    @Argument(help: "The order identifier.") var id: String

    func run() async throws {
        guard let queued = try await options.withService({ try await $0.service.resendPushes(type: type, id: id) }) else {
            throw CommandFailure("there is no order \(id) of type \(type)")
        }
        try options.output(
            .object(["pushesQueued": .int(queued)]),
            table: "queued a push for \(queued) device\(queued == 1 ? "" : "s"); the running server sends it\n"
        )
    }
}
