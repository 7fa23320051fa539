import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "orders", abstract: "Orders, newest first.")

    @OptionGroup var options: AdminOptions
    @Option(help: "Only this order type.") var type: String?
    @Option(help: "Only orders in this status (open, completed, cancelled).") var status: Order.Status?
    @Option(help: "Only orders updated since: RFC 3339 or an age (2h, 7d).") var since: AdminTime?
    @Option(help: "Orders per page.") var limit = 50
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withStore { store in
            try await store.orders(
                OrderFilter(type: type, status: status, updatedSince: since?.date),
                page: PageRequest(limit: max(1, min(limit, 1_000)), before: before)
            )
        }
        try options.output(
            try page.json("orders"),
            table: TextTable(
                ["TYPE", "ORDER", "STATUS", "VERSION", "DEVICES", "UPDATED"],
                page.records.map {
                    [
                        $0.orderTypeIdentifier, $0.orderIdentifier, $0.status.rawValue, "\($0.version)", "\($0.registrations)",
                        RFC3339.format($0.updatedAt),
                    ]
                }
            ).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}
