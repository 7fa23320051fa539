import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Orders, newest first: found by one search, filtered, a page at a time (as /admin lists them)."
    )

    @OptionGroup var options: AdminOptions
    @Option(
        help: """
            Only the orders this names: an order identifier, order number, tracking number, device identifier, the \
            start of a push token (8 or more hex digits), or a merchant's slug (its orders).
            """
    )
    var search: String?
    @Option(help: "Only this order type.") var type: String?
    @Option(help: "Only orders in this status (open, completed, cancelled).") var status: Order.Status?
    @Option(help: "Only this merchant's orders (its slug).") var merchant: String?
    @Option(help: "Only orders updated since: RFC 3339 or an age (2h, 7d).") var since: AdminTime?
    @Option(help: "Only orders created at or after: RFC 3339 or an age (2h, 7d).") var createdFrom: AdminTime?
    @Option(help: "Only orders created before: RFC 3339 or an age (2h, 7d).") var createdBefore: AdminTime?
    @Flag(help: "Oldest first.") var oldestFirst = false
    @Option(help: "Orders per page.") var limit = 50
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let (page, slugs) = try await options.withService { offline in
            let service = offline.service
            let merchants = try await service.merchantsHolding()
            let now = service.now()
            var filter = OrderFilter(
                type: type,
                status: status,
                updatedSince: since?.date(now: now),
                createdFrom: createdFrom?.date(now: now),
                createdBefore: createdBefore?.date(now: now),
                oldestFirst: oldestFirst
            )
            func merchantID(_ slug: String) throws -> Int64 {
                guard let found = merchants.first(where: { $0.slug == slug }) else {
                    throw CommandFailure("there is no merchant \(slug)")
                }
                return found.id
            }
            if let merchant { filter.merchant = try merchantID(merchant) }
            if let search, !search.isEmpty {
                // As the console reads its search box: a merchant's slug lists that merchant's orders.
                if let named = merchants.first(where: { $0.slug == search.lowercased() }) {
                    filter.merchant = named.id
                } else {
                    filter.text = search
                }
            }
            let page = try await service.orders(filter, page: PageRequest(limit: max(1, min(limit, 1_000)), before: before))
            return (page, Dictionary(merchants.map { ($0.id, $0.slug) }, uniquingKeysWith: { first, _ in first }))
        }
        try options.output(
            try page.json("orders"),
            table: TextTable(
                ["MERCHANT", "TYPE", "ORDER", "NUMBER", "STATUS", "VERSION", "DEVICES", "UPDATED"],
                page.records.map {
                    [
                        slugs[$0.merchantID] ?? "\($0.merchantID)", $0.orderTypeIdentifier, $0.orderIdentifier,
                        $0.orderNumber ?? "", $0.status.rawValue, "\($0.version)", "\($0.registrations)",
                        RFC3339.format($0.updatedAt),
                    ]
                }
            ).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}
