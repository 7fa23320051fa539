import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminPushes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushes",
        abstract: "Pushes in the outbox, newest first, with the reason of the last failure."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "Only pushes in this status: pending, sending, delivered, failed.") var status: PushStatus?
    @Option(help: "At most this many.") var limit = 100
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withService { offline in
            try await offline.service.pushes(PushFilter(status: status), page: PageRequest(limit: max(1, min(limit, 10_000)), before: before))
        }
        try options.output(
            try page.json("pushes"),
            table: AdminOrder.pushTable(page.records).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}
