import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminLogs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logs", abstract: "What devices sent to /v1/log, newest first.")

    @OptionGroup var options: AdminOptions
    @Option(help: "Only entries last received since: RFC 3339 or an age (2h, 7d).") var since: AdminTime?
    @Option(help: "Only entries containing this text (case-insensitive).") var contains: String?
    @Option(help: "At most this many.") var limit = 100
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withService { offline in
            try await offline.service.logs(
                LogFilter(since: since?.date(now: offline.service.now()), containing: contains),
                page: PageRequest(limit: max(1, min(limit, 10_000)), before: before)
            )
        }
        try options.output(
            try page.json("logs"),
            table: TextTable(
                ["RECEIVED", "LAST SEEN", "TIMES", "FROM", "MESSAGE"],
                page.records.map {
                    [RFC3339.format($0.receivedAt), RFC3339.format($0.lastSeenAt), "\($0.count)", $0.remoteAddress ?? "", $0.message]
                },
                widths: [20, 20, 8, 40, 100]
            ).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}
