import ArgumentParser
import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// `wallet-orders keys`: certificates and keys.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make certificates and keys.",
        subcommands: [Development.self]
    )

    /// `wallet-orders keys dev`: a development chain shaped like Apple's.
    struct Development: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dev",
            abstract: "Make a development chain: root CA, WWDR-like intermediate, Order Type ID certificate and an APNs .p8 key.",
            discussion: "Nothing made here is trusted by a real iPhone: it is for local runs and tests."
        )

        @Option(help: "The folder to write into; created if missing.")
        var out: String

        @Option(name: .customLong("order-type"), help: "The Order Type ID the certificate is for.")
        var orderType = DevelopmentKeyFiles.defaultOrderType

        @Option(help: "The team ID (10 characters) the certificate and APNs key belong to.")
        var team = DevelopmentKeyFiles.defaultTeam

        @Flag(help: "Replace files that already exist.")
        var force = false

        func validate() throws {
            if let problem = Identifier.problem(with: orderType) {
                throw ValidationError("--order-type \(problem)")
            }
            if team.isEmpty || team.count > 32 || !team.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                throw ValidationError("--team must be letters and digits, like Apple's 10-character team IDs")
            }
        }

        func run() throws {
            let files = try DevelopmentKeyFiles.write(
                to: URL(fileURLWithPath: out), orderType: orderType, team: team, replace: force)
            print("Wrote a development chain for \(orderType) (team \(team)) to \(out):")
            for file in files.written { print("  \(file)") }
            print("Load it with: set -a; . \(files.environmentFile); set +a")
        }
    }
}

/// Writes a `DevelopmentChain` as files, in the layout `keys dev` documents.
enum DevelopmentKeyFiles {
    static let defaultOrderType = "order.com.example.dev"
    static let defaultTeam = "DEVTEAM123"

    struct Written {
        let written: [String]
        let environmentFile: String
    }

    static func write(to folder: URL, orderType: String, team: String, replace: Bool) throws -> Written {
        let chain = try DevelopmentChain(orderTypeIdentifier: orderType, teamIdentifier: team)
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let apnsName = "AuthKey_\(chain.apnsKeyID).p8"
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let environment = """
        # Development settings made by `wallet-orders keys dev`; not trusted by real devices.
        WALLET_ORDERS_ORDER_TYPE=\(orderType)
        WALLET_ORDERS_TEAM_ID=\(team)
        WALLET_ORDERS_SIGNING_CERT=\(path("order-type.pem"))
        WALLET_ORDERS_SIGNING_KEY=\(path("order-type.key"))
        WALLET_ORDERS_WWDR_CERT=\(path("wwdr.pem"))
        WALLET_ORDERS_APNS_KEY=\(path(apnsName))
        WALLET_ORDERS_APNS_KEY_ID=\(chain.apnsKeyID)
        WALLET_ORDERS_APNS_TEAM_ID=\(team)

        """
        let outputs: [(name: String, contents: String, secret: Bool)] = [
            ("root-ca.pem", chain.root.pem, false),
            ("wwdr.pem", chain.wwdr.pem, false),
            ("order-type.pem", chain.orderTypeCertificate.pem, false),
            ("order-type.key", try chain.orderTypeKey.pkcs8PEM(), true),
            (apnsName, try chain.apnsKey.pkcs8PEM(), true),
            ("apns-public.pem", try chain.apnsKey.publicKeyPEM(), false),
            ("dev.env", environment, false),
        ]
        if !replace {
            let existing = ["root-ca.pem", "order-type.key", "dev.env"].filter { manager.fileExists(atPath: path($0)) }
            if !existing.isEmpty {
                throw ValidationError("\(folder.path) already holds \(existing.joined(separator: ", ")); pass --force to replace it")
            }
        }
        for output in outputs {
            let url = folder.appendingPathComponent(output.name)
            try Data(output.contents.utf8).write(to: url, options: .atomic)
            if output.secret {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
        }
        return Written(written: outputs.map(\.name), environmentFile: path("dev.env"))
    }
}
