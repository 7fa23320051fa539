import ArgumentParser
import Foundation
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `wallet-orders partners …`: logistics partners that publish the shipping updates of some merchants' orders.
struct Partners: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, change and remove logistics partners for merchants, and make and revoke their keys.",
        discussion: """
            A partner (a carrier, a fulfilment house, a carrier aggregator) publishes the shipping updates of the \
            merchants it is added for. Its keys (wo_partner_…, shown once) may post tracking events and change the \
            progress of those merchants' fulfillments, nothing else. A partner with --provider takes that \
            aggregator's webhook at /hooks/<provider>/<name>, checked with the secret in --secret-file. A \
            suspended merchant's partners change none of its orders until it is resumed.
            """,
        subcommands: [
            PartnersAdd.self, PartnersList.self, PartnersKey.self, PartnersUnlink.self, PartnersSecret.self,
            PartnersRemove.self,
        ]
    )
}

extension AdminOptions {
    /// Prints partners as JSON or a table, with their merchants' slugs.
    func output(_ partners: [Partner], registry: MerchantRegistry) async throws {
        let slugs = Dictionary(uniqueKeysWithValues: try await registry.list().map { ($0.id, $0.slug) })
        try output(
            .object(["partners": try JSONValue.encoding(partners)]),
            table: TextTable(
                ["NAME", "MERCHANTS", "PROVIDER", "CREATED"],
                partners.map {
                    [
                        $0.name, $0.merchantIDs.map { slugs[$0] ?? "\($0)" }.joined(separator: ", "), $0.provider ?? "-",
                        RFC3339.format($0.createdAt),
                    ]
                }
            ).text
        )
    }
}

struct PartnersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a partner for some merchants.")

    @OptionGroup var options: AdminOptions
    @Argument(help: "Its name: 2 to 32 lower-case letters, digits and hyphens; each version it makes says it.")
    var name: String
    @Option(name: .customLong("merchant"), help: "The slug of a merchant whose orders it updates (repeat it).")
    var merchants: [String] = []
    @Option(help: "The carrier aggregator whose webhook brings its events: aftership or easypost.")
    var provider: String?
    @Option(help: "A file holding the secret that aggregator signs its webhooks with (not on the command line: it would show in ps).")
    var secretFile: String?

    func run() async throws {
        let secret = try secretFile.map(readSecret)
        try await options.withRegistry { registry in
            do {
                let partner = try await registry.addPartner(
                    name: name,
                    merchantSlugs: merchants,
                    provider: provider,
                    providerSecret: secret
                )
                try await options.output([partner], registry: registry)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
    }
}

/// The secret in the file at `path`, without the line break that ends it.
func readSecret(_ path: String) throws -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    } catch {
        throw CommandFailure("the secret file \(path) cannot be read: \(error.localizedDescription)")
    }
}

struct PartnersUnlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Stop a partner publishing one merchant's updates (by running servers within a second or so)."
    )

    @OptionGroup var options: AdminOptions
    @Argument var name: String
    @Option(name: .customLong("merchant"), help: "The slug of the merchant whose orders it no longer updates.")
    var merchant: String

    func run() async throws {
        try await options.withRegistry { registry in
            do {
                let partner = try await registry.unlinkPartner(name, from: merchant)
                try await options.output([partner], registry: registry)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
    }
}

struct PartnersSecret: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret",
        abstract: "Give a partner's provider a new secret; the old one is refused from then on."
    )

    @OptionGroup var options: AdminOptions
    @Argument var name: String
    @Option(help: "A file holding the new secret (not on the command line: it would show in ps).")
    var secretFile: String
    @Option(help: "The carrier aggregator that signs with it: aftership or easypost (left out: the partner's own).")
    var provider: String?

    func run() async throws {
        let secret = try readSecret(secretFile)
        try await options.withRegistry { registry in
            do {
                let partner = try await registry.setProviderSecret(of: name, provider: provider, secret: secret)
                try await options.output([partner], registry: registry)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
    }
}

struct PartnersRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a partner: its keys and its provider's webhook are refused, the events it sent forgotten."
    )

    @OptionGroup var options: AdminOptions
    @Argument var name: String

    func run() async throws {
        try await options.withRegistry { registry in
            do {
                try await registry.removePartner(name)
            } catch let error as MerchantRegistryError {
                throw registryFailure(error)
            }
        }
        try options.output(.object(["removed": .string(name)]), table: "removed partner \(name)\n")
    }
}

struct PartnersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every partner, with its merchants.")

    @OptionGroup var options: AdminOptions

    func run() async throws {
        try await options.withRegistry { registry in try await options.output(try await registry.partners(), registry: registry) }
    }
}

struct PartnersKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Make, list and revoke a partner's keys.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key; it is printed this once (only its SHA-256 is kept)."
        )

        @OptionGroup var options: AdminOptions
        @Argument var name: String

        func run() async throws {
            let (record, text) = try await options.withRegistry { registry in
                do {
                    return try await registry.createPartnerKey(for: name)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(
                .object(["id": .string(record.id), "key": .string(text)]),
                table: "\(text)\n(key \(record.id) of partner \(name): shown this once, hand it to the partner securely)\n"
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The partner's keys, revoked ones included.")

        @OptionGroup var options: AdminOptions
        @Argument var name: String

        func run() async throws {
            let keys = try await options.withRegistry { registry in
                do {
                    return try await registry.partnerKeys(of: name)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(
                .object(["keys": try JSONValue.encoding(keys)]),
                table: MerchantsKey.table(keys)
            )
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: refused from now on (by running servers within a second or so)."
        )

        @OptionGroup var options: AdminOptions
        @Argument var name: String
        @Argument(help: "The key's id (the 12 hex digits after wo_partner_).") var keyID: String

        func run() async throws {
            try await options.withRegistry { registry in
                do {
                    try await registry.revokePartnerKey(keyID, of: name)
                } catch let error as MerchantRegistryError {
                    throw registryFailure(error)
                }
            }
            try options.output(.object(["revoked": .string(keyID)]), table: "revoked key \(keyID) of partner \(name)\n")
        }
    }
}
