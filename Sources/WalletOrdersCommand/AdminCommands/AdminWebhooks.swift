import ArgumentParser
import Foundation
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

struct AdminWebhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Every merchant's webhook endpoints: whether each is enabled, and why not (never their secrets)."
    )

    @OptionGroup var options: AdminOptions
    @Flag(help: "Only the disabled endpoints.") var disabled = false

    func run() async throws {
        let (endpoints, slugs) = try await options.withService { offline in
            let merchants = try await offline.service.merchantsHolding()
            let endpoints = try await WebhookService(orders: offline.service).all()
            return (endpoints, Dictionary(uniqueKeysWithValues: merchants.map { ($0.id, $0.slug) }))
        }
        let shown = endpoints.filter { !disabled || $0.disabledAt != nil }
        let json = JSONValue.array(
            shown.map { endpoint in
                var object: [String: JSONValue] = [
                    "id": .string(endpoint.id), "merchant": .string(slugs[endpoint.merchantID] ?? "?"),
                    "url": .string(endpoint.url), "events": .array(endpoint.events.map { .string($0.rawValue) }),
                    "enabled": .bool(endpoint.disabledAt == nil), "createdAt": .string(RFC3339.format(endpoint.createdAt)),
                ]
                if let at = endpoint.disabledAt { object["disabledAt"] = .string(RFC3339.format(at)) }
                if let reason = endpoint.disabledReason { object["disabledReason"] = .string(reason) }
                return .object(object)
            }
        )
        let table = TextTable(
            ["ID", "MERCHANT", "URL", "EVENTS", "STATE", "WHY DISABLED"],
            shown.map {
                [
                    $0.id, slugs[$0.merchantID] ?? "?", $0.url,
                    "\($0.events.count == WebhookEvent.allCases.count ? "all" : $0.events.map(\.rawValue).joined(separator: ","))",
                    $0.disabledAt.map { "disabled \(RFC3339.format($0))" } ?? "enabled", $0.disabledReason ?? "",
                ]
            },
            widths: [24, 24, 48, 48, 32, 120]
        )
        try options.output(.object(["webhooks": json]), table: table.text)
    }
}
