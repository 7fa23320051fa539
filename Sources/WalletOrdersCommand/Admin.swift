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

    /// Runs `body` with the service over the existing database (admin never creates one, nor migrates it), as the
    /// server runs it and reading the store's clock; closes it afterwards.
    func withService<Result>(_ body: (OfflineService) async throws -> Result) async throws -> Result {
        var logger = Logger(label: "wallet-orders")
        logger.logLevel = .warning
        let offline: OfflineService
        do {
            offline = try await OfflineService.open(try await configuration.load(), logger: logger)
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        }
        do {
            let result = try await body(offline)
            await offline.close()
            return result
        } catch {
            await offline.close()
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
    /// A time as written, or an age to count back from the store's clock.
    private let time: Date?
    private let age: TimeInterval

    init?(argument: String) {
        if let date = RFC3339.parse(argument) {
            (time, age) = (date, 0)
            return
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = argument.last.flatMap({ units[$0] }), let amount = Double(argument.dropLast()), amount >= 0 else {
            return nil
        }
        (time, age) = (nil, amount * unit)
    }

    /// The time meant, an age counted back from `now` (the store's clock, which every instance reads).
    func date(now: Date) -> Date {
        time ?? now.addingTimeInterval(-age)
    }
}
