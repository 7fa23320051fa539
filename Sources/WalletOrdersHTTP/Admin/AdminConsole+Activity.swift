import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `/admin/activity`: what happened day by day, drawn as charts, with the counts, the merchants and the newest pushes
/// and device logs.
extension AdminConsole {
    /// How many of the newest pushes and device log entries the page lists.
    static let recentRows = 20

    /// `GET /admin/activity`: `merchant` (a slug; every merchant's orders without one) and `days` (7, 30 or 90).
    @Sendable func activityPage(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let days = Int(query.get("days") ?? "30") ?? 0
        guard [7, 30, 90].contains(days) else { throw APIError(.badRequest, "days must be 7, 30 or 90") }
        var merchant: Merchant?
        if let slug = query.get("merchant"), !slug.isEmpty {
            guard let found = try await service.merchants.merchant(slug: slug) else {
                throw APIError(.badRequest, "merchant must be a merchant's slug")
            }
            merchant = found
        }
        let (activity, stats) = try await charts.read(merchant: merchant?.id, days: days, now: service.now()) {
            (try await service.activity(merchant: merchant?.id, days: days), try await service.stats())
        }
        let today = StoreActivity.day(service.now())
        let range = Array((today - Int64(days - 1))...today)
        func series(_ values: [Int64: Int]) -> [Double?] { range.map { Double(values[$0] ?? 0) } }
        let created = range.map { activity.ordersCreated[$0] ?? 0 }.reduce(0, +)
        let share = created == 0 ? "none were created" : String(format: "%.1f%%", 100 * Double(activity.addedOfCreated) / Double(created))
        let merchants = try await service.merchantsHolding()

        let charts = [
            SVGChart(
                title: "Orders created and updated per day",
                days: range,
                series: [
                    .init(name: "created", color: .blue, values: series(activity.ordersCreated)),
                    .init(name: "updated", color: .gray, values: series(activity.ordersUpdated)),
                ],
                style: .bars,
                unit: " orders"
            ),
            SVGChart(
                title: "Orders added to Wallet per day (a device registered for the first time)",
                days: range,
                series: [.init(name: "added", color: .green, values: series(activity.ordersAdded))],
                style: .bars,
                unit: " orders"
            ),
            SVGChart(
                title: "Pushes per day by outcome",
                days: range,
                series: [
                    .init(name: "delivered", color: .green, values: range.map { Double(activity.pushesFinished[$0]?[.delivered] ?? 0) }),
                    .init(name: "failed", color: .red, values: range.map { Double(activity.pushesFinished[$0]?[.failed] ?? 0) }),
                ],
                style: .stackedBars,
                unit: " pushes"
            ),
            SVGChart(
                title: "From update to delivered, seconds",
                days: range,
                series: [(50, SVGChart.Color.green), (90, .amber), (99, .red)].map { percent, color in
                    .init(
                        name: "p\(percent)",
                        color: color,
                        values: range.map { day in
                            activity.deliverySeconds[day].flatMap { Self.percentile(Double(percent) / 100, of: $0) }
                        }
                    )
                },
                style: .lines,
                unit: " s"
            ),
            SVGChart(
                title: "Outbox depth at the end of each day",
                days: range,
                series: [.init(name: "pending or sending", color: .amber, values: Self.outboxDepths(activity, range))],
                style: .lines,
                unit: " pushes"
            ),
        ]
        let chart = try ConsoleResources.loaded.get().template("chart")
        func counts<Key: RawRepresentable<String>>(_ values: [Key: Int]) -> String {
            values.isEmpty
                ? "none" : values.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: " · ")
        }
        let context: [String: Any] = [
            "scope": merchant.map { "merchant \($0.slug) (\($0.displayName))" } ?? "every merchant",
            "merchantOptions": [["value": "", "label": "every merchant", "selected": merchant == nil] as [String: Any]]
                + merchants.map { ["value": $0.slug, "label": $0.slug, "selected": $0.id == merchant?.id] },
            "multipleMerchants": merchants.count > 1,
            "dayOptions": [7, 30, 90].map { ["value": "\($0)", "selected": $0 == days] as [String: Any] },
            "summary": [
                ["name": "Added to Wallet", "value": "\(activity.addedOfCreated) of the \(created) orders created in these \(days) days (\(share))"],
                ["name": "Devices registered now", "value": "\(activity.registeredDevices)"],
                ["name": "Outbox depth now", "value": "\(activity.outboxDepth)"],
            ],
            "charts": charts.map { RawHTML(html: $0.html(chart)) },
            "stats": [
                ["name": "Orders, every merchant", "value": "\(stats.orders) (\(counts(stats.ordersByStatus)))"],
                ["name": "Registrations", "value": "\(stats.registrations) on \(stats.devices) devices"],
                ["name": "Pushes, last hour", "value": counts(stats.pushesLastHour)],
                ["name": "Pushes, last day", "value": counts(stats.pushesLastDay)],
                ["name": "Device log entries", "value": "\(stats.deviceLogs)"],
            ],
            "merchants": merchants.map { merchant -> [String: Any] in
                let limits = [
                    merchant.limits.requestsPerSecond.map { "\($0)/s" }, merchant.limits.maxOrders.map { "\($0) orders" },
                    merchant.limits.maxAssetBytes.map { "\($0) bytes" },
                ].compactMap { $0 }
                return [
                    "slug": merchant.slug, "name": merchant.displayName, "status": merchant.status.rawValue,
                    "orders": "\(merchant.usage.orders)", "assetBytes": "\(merchant.usage.assetBytes)",
                    "historyBytes": "\(merchant.usage.historyBytes)",
                    "limits": limits.isEmpty ? "none" : limits.joined(separator: ", "),
                    "href": Self.link("/admin", [("merchant", merchant.slug)]),
                ]
            },
            "pushes": try await service.pushes(PushFilter(merchant: merchant?.id), page: PageRequest(limit: Self.recentRows))
                .records.map { push -> [String: Any] in
                    [
                        "id": "\(push.id)", "order": push.orderIdentifier, "device": push.deviceIdentifier,
                        "status": push.status.rawValue, "attempts": "\(push.attempts)", "updated": Self.time(push.updatedAt),
                        "error": push.lastError ?? "",
                        "href": Self.link("/admin/order", [("type", push.orderTypeIdentifier), ("id", push.orderIdentifier)]),
                    ]
                },
            "logs": try await service.logs(LogFilter(merchant: merchant?.id), page: PageRequest(limit: Self.recentRows))
                .records.map {
                    [
                        "received": Self.time($0.receivedAt), "lastSeen": Self.time($0.lastSeenAt), "count": "\($0.count)",
                        "from": $0.remoteAddress ?? "", "message": $0.message,
                    ]
                },
        ]
        return try render("Activity", tab: "activity", template: "activity", context, request: request)
    }

    /// The value below which `fraction` of the counted values fall; nil with none.
    static func percentile(_ fraction: Double, of counts: [Int: Int]) -> Double? {
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = Int((fraction * Double(total)).rounded(.up))
        var seen = 0
        for (seconds, count) in counts.sorted(by: { $0.key < $1.key }) {
            seen += count
            if seen >= rank { return Double(seconds) }
        }
        return Double(counts.keys.max() ?? 0)
    }

    /// The outbox's depth at the end of each day of `range`, worked back from its depth now: a day's end held what
    /// the next day's end held, less what that day queued, plus what it finished.
    static func outboxDepths(_ activity: StoreActivity, _ range: [Int64]) -> [Double?] {
        var depths = [Int](repeating: 0, count: range.count)
        var depth = activity.outboxDepth
        for index in range.indices.reversed() {
            depths[index] = max(depth, 0)
            let day = range[index]
            let finished = activity.pushesFinished[day]?.values.reduce(0, +) ?? 0
            depth = depth - (activity.pushesQueued[day] ?? 0) + finished
        }
        return depths.map { Double($0) }
    }
}
