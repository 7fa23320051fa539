import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts: orders, devices, logs, the outbox, and push outcomes over the last hour and day."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        let stats = try await options.withService { try await $0.service.stats() }
        func counts<Key: RawRepresentable<String>>(_ values: [Key: Int]) -> String {
            values.isEmpty
                ? "0"
                : values.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }
                    .map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        }
        try options.output(
            try JSONValue.encoding(stats),
            table: TextTable(
                ["", ""],
                [
                    ["orders", "\(stats.orders) (\(counts(stats.ordersByStatus)))"],
                    ["registrations", "\(stats.registrations) on \(stats.devices) devices"],
                    ["device log entries", "\(stats.deviceLogs)"],
                    ["outbox depth", "\(stats.outboxDepth)"],
                    ["pushes", counts(stats.pushesByStatus)],
                    ["pushes, last hour", counts(stats.pushesLastHour)],
                    ["pushes, last day", counts(stats.pushesLastDay)],
                ],
                header: false,
                widths: [20, 200]
            ).text
        )
    }
}
