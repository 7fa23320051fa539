import ArgumentParser
import Foundation

/// The `wallet-orders` command: serve, package, verify and administer Wallet orders.
@main
struct WalletOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-orders",
        abstract: "An Apple Wallet Orders server: device API, signed .order packages and APNs pushes.",
        subcommands: [
            Serve.self, Migrate.self, Doctor.self, Admin.self, Merchants.self, Partners.self, Shops.self, Keys.self, Package.self, Verify.self,
            APNSSandbox.self, Device.self, Conformance.self,
        ]
    )

    static func main() async {
        await main(Array(arguments.dropFirst()))
    }

    /// The process's arguments, its name first. Swift on Linux finds them by walking back from `environ`, and a
    /// library loaded before its runtime that sets a variable moves `environ` and leaves `CommandLine.arguments`
    /// empty (swiftlang/swift#76080): libfaketime does, which runs `serve` with its clock stepped. The kernel's
    /// copy is read then.
    private static var arguments: [String] {
        guard CommandLine.arguments.isEmpty, let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else {
            return CommandLine.arguments
        }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }
}
