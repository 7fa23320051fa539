import ArgumentParser
import Foundation
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `wallet-orders shops …`: shops connected to merchants, whose own webhooks create and update their Wallet orders.
struct Shops: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect a merchant's Shopify store, WooCommerce site or UCP sender, list and change its shops.",
        discussion: """
            A connected shop's order and fulfillment webhooks, sent to <webServiceURL>/hooks/<kind>/<id> and checked \
            with the secret in --secret-file (for ucp, the sender's UCP profile, a JWK or a PEM public key), create \
            and update the merchant's Wallet orders with no code of the merchant's. Orders paid with Apple Pay are skipped unless \
            --keep-apple-pay: the platform hands Apple Pay its own order details then.
            """,
        subcommands: [ShopsConnect.self, ShopsList.self, ShopsChange.self, ShopsDisconnect.self]
    )
}

extension AdminOptions {
    /// Runs `body` with the shops of the service over the migrated database.
    func withShops<Result>(_ body: (ShopService, OfflineService) async throws -> Result) async throws -> Result {
        try await withService { offline in
            do {
                return try await body(ShopService(orders: offline.service), offline)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
    }

    /// Prints shops as JSON or a table, each with the address its webhooks go to.
    func output(_ shops: [ShopConnection], webServiceURL: String) throws {
        func url(_ shop: ShopConnection) -> String { "\(webServiceURL)/hooks/\(shop.kind.rawValue)/\(shop.id)" }
        var objects: [JSONValue] = []
        for shop in shops {
            var object = try JSONValue.encoding(shop).objectValue ?? [:]
            object["webhookURL"] = .string(url(shop))
            objects.append(.object(object))
        }
        try output(
            .object(["shops": .array(objects)]),
            // The webhook URL whole: it is pasted into the platform's settings.
            table: TextTable(
                ["ID", "KIND", "SHOP", "WEBHOOK URL", "APPLE PAY", "CREATED"],
                shops.map {
                    [$0.id, $0.kind.rawValue, $0.shop, url($0), $0.skipApplePay ? "skipped" : "kept", RFC3339.format($0.createdAt)]
                },
                widths: [24, 12, 48, 160, 8, 20]
            ).text
        )
    }
}

extension ShopKind: ExpressibleByArgument {}

struct ShopsConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "connect", abstract: "Connect a shop to a merchant.")

    @OptionGroup var options: AdminOptions
    @Option(help: "The merchant's slug.") var merchant: String
    @Option(help: "shopify, woocommerce or ucp.") var kind: ShopKind
    @Option(help: "The shop: a Shopify shop's *.myshopify.com domain, a WooCommerce site's or a UCP sender's https address.")
    var shop: String
    @Option(help: "A file holding the webhook secret (for ucp, the sender's UCP profile JSON, a JWK or a PEM public key); not on the command line.")
    var secretFile: String
    @Option(help: "The customer's order page, https, with {id} or {number} for the shop's order (never its status link).")
    var orderManagementURL: String?
    @Flag(help: "Keep orders paid with Apple Pay (the platform then hands Apple Pay an order of its own too).")
    var keepApplePay = false

    func run() async throws {
        let secret = try readSecret(secretFile)
        try await options.withShops { shops, offline in
            let connection = try await shops.connect(
                merchant: merchant,
                kind: kind,
                shop: shop,
                secret: secret,
                orderManagementURL: orderManagementURL,
                skipApplePay: !keepApplePay
            )
            try options.output([connection], webServiceURL: offline.configuration.webServiceURL)
        }
    }
}

struct ShopsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a merchant's shops.")

    @OptionGroup var options: AdminOptions
    @Option(help: "The merchant's slug.") var merchant: String

    func run() async throws {
        try await options.withShops { shops, offline in
            try options.output(try await shops.connections(of: merchant), webServiceURL: offline.configuration.webServiceURL)
        }
    }
}

struct ShopsChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Give a shop a new secret, order page or Apple Pay rule (the old secret is refused at once)."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "The merchant's slug.") var merchant: String
    @Argument(help: "The shop's id (shp_…).") var id: String
    @Option(help: "A file holding the new secret (for ucp, the sender's new public key).") var secretFile: String?
    @Option(help: "The customer's order page; an empty string removes it.") var orderManagementURL: String?
    @Option(help: "skip or keep orders paid with Apple Pay.") var applePay: ApplePayRule?

    enum ApplePayRule: String, ExpressibleByArgument {
        case skip, keep
    }

    func run() async throws {
        let secret = try secretFile.map(readSecret)
        try await options.withShops { shops, offline in
            let connection = try await shops.change(
                id,
                of: merchant,
                secret: secret,
                orderManagementURL: orderManagementURL,
                skipApplePay: applePay.map { $0 == .skip }
            )
            try options.output([connection], webServiceURL: offline.configuration.webServiceURL)
        }
    }
}

struct ShopsDisconnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect",
        abstract: "Disconnect a shop: its webhooks are refused from then on; the orders it made stay."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "The merchant's slug.") var merchant: String
    @Argument(help: "The shop's id (shp_…).") var id: String

    func run() async throws {
        try await options.withShops { shops, _ in
            try await shops.disconnect(id, of: merchant)
            try options.output(.object(["removed": .string(id)]), table: "disconnected \(id)\n")
        }
    }
}
