import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `wallet-orders admin …`: read and fix what the service holds, from the same database file, while it runs.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect and fix the service's database (safe while serve is running).",
        discussion: "Tables for people; --json for scripts. The database comes from the same configuration as serve.",
        subcommands: [
            AdminOrders.self, AdminOrder.self, AdminRegistrations.self, AdminLogs.self, AdminPushes.self, AdminStats.self,
            AdminResend.self, AdminPrune.self, AdminRebuildPackages.self, AdminWebhooks.self,
        ]
    )
}

/// What every admin command takes: the configuration (for the database) and the output form.
struct AdminOptions: ParsableArguments {
    @OptionGroup var configuration: ConfigurationOptions

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    /// Runs `body` on the existing database (admin never creates one), closing it afterwards.
    func withStore<Result>(_ body: (any OrderStore) async throws -> Result) async throws -> Result {
        let database = try await configuration.load().database
        if case .sqlite(let path) = database, !FileManager.default.fileExists(atPath: path) {
            throw CommandFailure("there is no database at \(path): pass --database or set WALLET_ORDERS_DATABASE")
        }
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = .warning
        let store = try await StoreFactory.open(database, logger: logger)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// Prints `value` as compact JSON, or `table` for people.
    func output(_ value: @autoclosure () throws -> JSONValue, table: @autoclosure () -> String) throws {
        if json {
            FileHandle.standardOutput.write(try value().serialized() + Data("\n".utf8))
        } else {
            print(table(), terminator: "")
        }
    }
}

/// Times and durations as admins type them: RFC 3339 (`2026-11-20T10:00:00Z`) or an age (`30m`, `2h`, `7d`).
extension Order.Status: ExpressibleByArgument {}

extension PushStatus: ExpressibleByArgument {}

struct AdminTime: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        if let date = RFC3339.parse(argument) {
            self.date = date
            return
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = argument.last.flatMap({ units[$0] }), let amount = Double(argument.dropLast()), amount >= 0 else {
            return nil
        }
        date = Date().addingTimeInterval(-amount * unit)
    }
}
