import ArgumentParser
import Foundation
import WalletOrdersApplication
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
                to: URL(fileURLWithPath: out),
                orderType: orderType,
                team: team,
                replace: force
            )
            print("Wrote a development chain for \(orderType) (team \(team)) to \(out):")
            for file in files.written { print("  \(file)") }
            print("Load it with: set -a; . \(files.environmentFile); set +a")
        }
    }
}
