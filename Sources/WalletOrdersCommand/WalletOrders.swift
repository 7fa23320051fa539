import ArgumentParser

/// The `wallet-orders` command: serve, package, verify and administer Wallet orders.
@main
struct WalletOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-orders",
        abstract: "An Apple Wallet Orders server: device API, signed .order packages and APNs pushes.",
        subcommands: [
            Serve.self, Migrate.self, Doctor.self, Admin.self, Merchants.self, Partners.self, Keys.self, Package.self, Verify.self,
            APNSSandbox.self, Device.self,
        ]
    )
}
