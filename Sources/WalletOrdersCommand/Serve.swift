import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersCrypto
import WalletOrdersPlayground

/// Options every command that reads the service's configuration shares.
struct ConfigurationOptions: ParsableArguments {
    @Option(help: "A JSON configuration file; WALLET_ORDERS_* environment variables override it.")
    var config: String?

    @Option(help: "The database: an SQLite file (default data/wallet-orders.sqlite) or a postgres://user@host:port/db URL.")
    var database: String?

    func load(host: String? = nil, port: Int? = nil) async throws -> ServiceConfiguration {
        do {
            var configuration = try await ServiceConfiguration.load(
                file: config,
                environment: ProcessInfo.processInfo.environment
            )
            if let database { configuration.database = try DatabaseLocation(database) }
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            return configuration
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        }
    }
}

/// `wallet-orders serve`: run the service.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the Wallet Orders device API and the merchant API.",
        discussion: "With no configuration at all, it makes development keys and a merchant key under the database's folder."
    )

    @OptionGroup var options: ConfigurationOptions

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (default 8080; 0 picks a free one).")
    var port: Int?

    @Flag(
        inversion: .prefixedNo,
        help:
            "In development (no order type configured), push to a local APNs in this process that hands pushes to the playground's simulated devices; without it, development pushes wait in the outbox."
    )
    var localAPNS = true

    func run() async throws {
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = .info
        var configuration = try await options.load(host: host, port: port)
        var playground: Playground?
        var embeddedAPNS: DevelopmentAPNS?
        var developmentNotes: [String] = []
        if configuration.orderTypes.isEmpty {
            // Development: the playground is open, and unless a local APNs is named, pushes go to one embedded
            // here that hands them to the playground's simulated devices.
            let folder = ServiceBootstrap.developmentKeysFolder(configuration)
            do {
                developmentNotes = try ServiceBootstrap.makeDevelopmentKeys(configuration)
            } catch let error as ConfigurationError {
                throw CommandFailure("cannot start: \(error.description)")
            }
            let rootFile = folder.appendingPathComponent("root-ca.pem").path
            let roots = FileManager.default.contents(atPath: rootFile).map(Certificate.allPEM) ?? []
            guard !roots.isEmpty else {
                throw CommandFailure("cannot start: \(rootFile) holds no certificate: remove \(folder.path) to make new development keys")
            }
            let development = Playground(access: .open, trustedRoots: roots)
            // The playground is open and its page holds a merchant key: only pages under this machine's own names
            // may read it, never one of an attacker's name rebound to this address.
            configuration.hosts = .loopback(
                adding: [configuration.host] + (configuration.publicURL.flatMap { URL(string: $0)?.host }.map { [$0] } ?? [])
            )
            if configuration.developmentAPNS == nil, localAPNS {
                let apns = try await DevelopmentAPNS.start(keys: folder.path, port: 0) { push in development.record(push) }
                development.deliver(from: apns.apns, url: apns.url)
                configuration.developmentAPNS = (url: apns.url, caFile: apns.caFile as String?)
                embeddedAPNS = apns
            }
            playground = development
        }
        let bootstrap: ServiceBootstrap
        do {
            // In development the playground's key speaks for the only merchant there is.
            bootstrap = try await ServiceBootstrap.make(
                configuration: configuration,
                logger: logger,
                extraMerchantKeys: playground.map { [$0.key] } ?? []
            )
        } catch let error as ConfigurationError {
            embeddedAPNS?.listener.close()
            throw CommandFailure("cannot start: \(error.description)")
        }
        if playground == nil, configuration.playground {
            // Production: only when asked for, behind the admin key (the configuration holds one then), acting as a
            // merchant of its own.
            playground = try await Playground.production(service: bootstrap.service)
        }
        let notes = developmentNotes + bootstrap.notes
        let playgroundLine: String? = playground.map {
            if case .adminKey = $0.access { return "/playground (behind the admin key)" }
            return "/playground"
        }
        let configured = bootstrap.configuration
        let orderTypes = bootstrap.service.orderTypes.keys.sorted().joined(separator: ", ")
        let page = PlaygroundPage(playground: playground, webServiceURL: bootstrap.service.webServiceURL)
        let listening = playground
        let app = ServiceApplication.make(
            service: bootstrap.service,
            metrics: bootstrap.metrics,
            configuration: configured,
            logger: logger,
            services: bootstrap.services,
            routes: { page.add(to: $0, adminGate: $1) },
            onServerRunning: { port in
                listening?.listening(host: configured.host, port: port)
                var lines = [
                    "wallet-orders is serving on http://\(configured.host):\(port) (webServiceURL \(configured.webServiceURL))",
                    "  order types: \(orderTypes)",
                    "  database: \(configured.database)",
                ]
                lines += notes.map { "  " + $0 }
                if let playgroundLine {
                    lines.append("  Playground: http://\(configured.host):\(port)\(playgroundLine)")
                }
                if !notes.isEmpty {
                    lines.append("  Create a first order (with the key above as KEY):")
                    lines.append(
                        "    curl -s -X POST http://\(configured.host):\(port)/api/v1/orders -H \"Authorization: Bearer $KEY\" "
                            + "-H 'Content-Type: application/json' -d @Examples/order.json"
                    )
                }
                // Written straight to the file descriptor: print() would sit in a buffer when stdout is not a terminal.
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            }
        )
        try await app.runService()
        playground?.stop()
        embeddedAPNS?.listener.close()
    }
}

/// `wallet-orders migrate`: apply pending migrations and exit.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the pending SQL migrations and exit.")

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let configuration = try await options.load()
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = .warning
        let store = try await StoreFactory.open(configuration.database, logger: logger)
        do {
            let applied = try await store.migrate()
            await store.close()
            print(
                applied.isEmpty
                    ? "\(configuration.database): up to date"
                    : "\(configuration.database): applied \(applied.joined(separator: ", "))"
            )
        } catch {
            await store.close()
            throw CommandFailure("cannot migrate \(configuration.database): \(error)")
        }
    }
}
