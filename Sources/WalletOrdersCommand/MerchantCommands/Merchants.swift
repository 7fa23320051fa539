import ArgumentParser
import Foundation
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore

/// `wallet-orders merchants …`: the merchants one service serves, their keys, limits and templates, changed in the
/// database while the servers run (each notices within a second or so).
struct Merchants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add and change merchants, their API keys, limits and templates.",
        discussion: """
            A platform serves many merchants under one order type and one web service. Each has its own keys \
            (wo_live_…, shown once), limits and template; every merchant but the default one (the shop of a \
            single-shop deployment) has its order identifiers namespaced by its slug: merchant acme's order 1001 \
            is acme:1001 to Wallet. The database comes from the same configuration as serve.
            """,
        subcommands: [
            MerchantsAdd.self, MerchantsList.self, MerchantsShow.self, MerchantsUpdate.self, MerchantsSuspend.self,
            MerchantsResume.self, MerchantsTemplate.self, MerchantsKey.self,
        ]
    )
}

extension AdminOptions {
    /// Runs `body` with the registry of the service over the migrated database, as the operator's API reaches it.
    func withRegistry<Result>(_ body: (MerchantRegistry) async throws -> Result) async throws -> Result {
        try await withService { try await body($0.registry) }
    }

    /// Prints merchants as JSON or a table.
    func output(_ merchants: [Merchant]) throws {
        try output(
            .object(["merchants": try JSONValue.encoding(merchants)]),
            table: TextTable(
                ["SLUG", "NAME", "STATUS", "ORDER TYPES", "ORDERS", "ASSET BYTES", "HISTORY BYTES", "LIMITS", "TEMPLATE"],
                merchants.map {
                    [
                        $0.slug, $0.displayName, $0.status.rawValue,
                        $0.orderTypes.isEmpty ? "all" : $0.orderTypes.joined(separator: ", "), "\($0.usage.orders)",
                        "\($0.usage.assetBytes)", "\($0.usage.historyBytes)", Self.limits($0.limits),
                        $0.templateVersion == 0 ? "-" : "v\($0.templateVersion)",
                    ]
                }
            ).text
        )
    }

    static func limits(_ limits: MerchantLimits) -> String {
        let parts = [
            limits.requestsPerSecond.map { "\($0)/s" }, limits.maxOrders.map { "\($0) orders" },
            limits.maxAssetBytes.map { "\($0) bytes" },
        ].compactMap { $0 }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

/// The limits the command line sets: a number, or 0 for none.
struct LimitOptions: ParsableArguments {
    @Option(help: "Merchant API requests per second (0: the service's merchantLimit).") var requestsPerSecond: Int?
    @Option(help: "Orders the merchant may store (0: no limit).") var maxOrders: Int?
    @Option(help: "Bytes of order files (images, return labels) and version history the merchant may store (0: no limit).")
    var maxAssetBytes: Int?

    var given: Bool { requestsPerSecond != nil || maxOrders != nil || maxAssetBytes != nil }

    /// `current` with the limits given here.
    func applied(to current: MerchantLimits) -> MerchantLimits {
        var limits = current
        if let requestsPerSecond { limits.requestsPerSecond = requestsPerSecond == 0 ? nil : requestsPerSecond }
        if let maxOrders { limits.maxOrders = maxOrders == 0 ? nil : maxOrders }
        if let maxAssetBytes { limits.maxAssetBytes = maxAssetBytes == 0 ? nil : maxAssetBytes }
        return limits
    }
}

/// Whether the service looks for the merchant's stalled parcels: hours, or 0 for never.
struct StallOption: ParsableArguments {
    @Option(
        help: "Move a parcel in transit with no news of it for this many hours to issue, once (1-720; 0: never, the default)."
    )
    var stalledParcelAfterHours: Int?

    /// The change the option asks for: nil when it was not given.
    var change: Int?? { stalledParcelAfterHours.map { $0 == 0 ? nil : $0 } }

    static func text(_ hours: Int?) -> String { hours.map { "after \($0) hours" } ?? "off" }
}

/// Says a registry refusal as a command failure.
func registryFailure(_ error: MerchantRegistryError) -> CommandFailure {
    CommandFailure(error.description)
}

struct MerchantsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a merchant.")

    @OptionGroup var options: AdminOptions
    @Argument(help: "Its slug: 2 to 32 lower-case letters, digits and hyphens; what its order identifiers start with.")
    var slug: String
    @Option(help: "Its name, as people read it.") var name: String
    @Option(name: .customLong("order-type"), help: "An order type it may use (repeat it; none: every one).")
    var orderTypes: [String] = []
    @Option(help: "A template folder of its own, laid over its order types' templates.") var template: String?
    @OptionGroup var limits: LimitOptions
    @OptionGroup var stall: StallOption

    func run() async throws {
        let merchant = try await options.withRegistry { registry in
            do {
                var merchant = try await registry.add(
                    slug: slug,
                    displayName: name,
                    orderTypes: orderTypes,
                    limits: limits.applied(to: MerchantLimits()),
                    stalledParcelAfterHours: stall.change ?? nil
                )
                if let template {
                    let folder = try OrderTemplate(directory: URL(fileURLWithPath: template))
                    merchant = try await registry.setTemplate(of: slug, files: folder.files, defaults: folder.defaults)
                }
                return merchant
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
        try options.output([merchant])
    }
}

struct MerchantsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every merchant, with what it holds and its limits."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        try options.output(try await options.withRegistry { try await $0.list() })
    }
}

struct MerchantsShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One merchant and its keys.")

    @OptionGroup var options: AdminOptions
    @Argument var slug: String

    func run() async throws {
        let (merchant, keys) = try await options.withRegistry { registry in
            do {
                return (try await registry.merchant(slug), try await registry.keys(of: slug))
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
        try options.output(
            .object(["merchant": try JSONValue.encoding(merchant), "keys": try JSONValue.encoding(keys)]),
            table: TextTable(
                ["", ""],
                [
                    ["slug", merchant.slug], ["name", merchant.displayName], ["status", merchant.status.rawValue],
                    ["order types", merchant.orderTypes.isEmpty ? "all" : merchant.orderTypes.joined(separator: ", ")],
                    ["orders", "\(merchant.usage.orders)"], ["asset bytes", "\(merchant.usage.assetBytes)"],
                    ["history bytes", "\(merchant.usage.historyBytes)"],
                    ["limits", AdminOptions.limits(merchant.limits)],
                    ["stalled parcels", StallOption.text(merchant.stalledParcelAfterHours)],
                    ["template", merchant.templateVersion == 0 ? "none of its own" : "version \(merchant.templateVersion)"],
                ],
                header: false
            ).text + "\nkeys\n" + MerchantsKey.table(keys)
        )
    }
}

struct MerchantsUpdate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change a merchant's name, order types, limits or stalled parcels."
    )

    @OptionGroup var options: AdminOptions
    @Argument var slug: String
    @Option(help: "Its new name.") var name: String?
    @Option(name: .customLong("order-type"), help: "An order type it may use (repeat it; replaces the list).")
    var orderTypes: [String] = []
    @Flag(help: "Let it use every order type the service signs.") var allOrderTypes = false
    @OptionGroup var limits: LimitOptions
    @OptionGroup var stall: StallOption

    func run() async throws {
        let merchant = try await options.withRegistry { registry in
            do {
                let current = try await registry.merchant(slug)
                var change = MerchantChange(displayName: name)
                if allOrderTypes { change.orderTypes = [] } else if !orderTypes.isEmpty { change.orderTypes = orderTypes }
                if limits.given { change.limits = limits.applied(to: current.limits) }
                change.stalledParcelAfterHours = stall.change
                return try await registry.update(slug, change)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
        try options.output([merchant])
    }
}

struct MerchantsSuspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Refuse the merchant's keys (403); its orders keep serving devices."
    )

    @OptionGroup var options: AdminOptions
    @Argument var slug: String

    func run() async throws {
        try await setStatus(.suspended, slug: slug, options: options)
    }
}

struct MerchantsResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Accept the merchant's keys again.")

    @OptionGroup var options: AdminOptions
    @Argument var slug: String

    func run() async throws {
        try await setStatus(.active, slug: slug, options: options)
    }
}

private func setStatus(_ status: MerchantStatus, slug: String, options: AdminOptions) async throws {
    let merchant = try await options.withRegistry { registry in
        do {
            return try await registry.update(slug, MerchantChange(status: status))
        } catch let error as MerchantRegistryError {
            throw registryFailure(error)
        }
    }
    try options.output([merchant])
}

struct MerchantsTemplate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Set a merchant's template from a folder (checked as a package would be), or remove it.",
        discussion: """
            The folder is laid over the merchant's order types' templates: its files replace theirs, its \
            template.json is merged over theirs (the merchant object, orderProvider with its two tracking logos, \
            default fields). Packages of the merchant's orders are signed again as devices fetch them.
            """
    )

    @OptionGroup var options: AdminOptions
    @Argument var slug: String
    @Argument(help: "The template folder.") var folder: String?
    @Flag(help: "Remove the merchant's template.") var remove = false

    func validate() throws {
        guard (folder == nil) == remove else { throw ValidationError("name a template folder, or pass --remove") }
    }

    func run() async throws {
        let merchant = try await options.withRegistry { registry in
            do {
                guard let folder else { return try await registry.removeTemplate(of: slug) }
                let template = try OrderTemplate(directory: URL(fileURLWithPath: folder))
                return try await registry.setTemplate(of: slug, files: template.files, defaults: template.defaults)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            } catch let error as PackageError {
                throw CommandFailure("\(error)")
            }
        }
        try options.output([merchant])
    }
}

struct MerchantsKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Make, list and revoke a merchant's API keys.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    /// Keys (a merchant's or a partner's) as a table: id, when made, last used and revoked.
    static func table(_ keys: [any APIKeyRecord]) -> String {
        TextTable(
            ["ID", "CREATED", "LAST USED", "REVOKED"],
            keys.map {
                [
                    $0.id, RFC3339.format($0.createdAt), $0.lastUsedAt.map(RFC3339.format) ?? "-",
                    $0.revokedAt.map(RFC3339.format) ?? "-",
                ]
            }
        ).text
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key; it is printed this once (only its SHA-256 is kept)."
        )

        @OptionGroup var options: AdminOptions
        @Argument var slug: String

        func run() async throws {
            let (record, text) = try await options.withRegistry { registry in
                do {
                    return try await registry.createKey(for: slug)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(
                .object(["id": .string(record.id), "key": .string(text)]),
                table: "\(text)\n(key \(record.id) of \(slug): shown this once, keep it in the shop's secrets)\n"
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The merchant's keys, revoked ones included.")

        @OptionGroup var options: AdminOptions
        @Argument var slug: String

        func run() async throws {
            let keys = try await options.withRegistry { registry in
                do {
                    return try await registry.keys(of: slug)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(.object(["keys": try JSONValue.encoding(keys)]), table: MerchantsKey.table(keys))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: refused from now on (by running servers within a second or so)."
        )

        @OptionGroup var options: AdminOptions
        @Argument var slug: String
        @Argument(help: "The key's id (the 12 hex digits after wo_live_).") var keyID: String

        func run() async throws {
            try await options.withRegistry { registry in
                do {
                    try await registry.revokeKey(keyID, of: slug)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(.object(["revoked": .string(keyID)]), table: "revoked key \(keyID) of \(slug)\n")
        }
    }
}
