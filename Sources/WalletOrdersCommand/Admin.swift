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
            AdminResend.self, AdminPrune.self, AdminRebuildPackages.self,
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

struct AdminOrders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "orders", abstract: "Orders, newest first.")

    @OptionGroup var options: AdminOptions
    @Option(help: "Only this order type.") var type: String?
    @Option(help: "Only orders in this status (open, completed, cancelled).") var status: Order.Status?
    @Option(help: "Only orders updated since: RFC 3339 or an age (2h, 7d).") var since: AdminTime?
    @Option(help: "Orders per page.") var limit = 50
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withStore { store in
            try await store.orders(
                OrderFilter(type: type, status: status, updatedSince: since?.date),
                page: PageRequest(limit: max(1, min(limit, 1_000)), before: before)
            )
        }
        try options.output(
            try page.json("orders"),
            table: TextTable(
                ["TYPE", "ORDER", "STATUS", "VERSION", "DEVICES", "UPDATED"],
                page.records.map {
                    [
                        $0.orderTypeIdentifier, $0.orderIdentifier, $0.status.rawValue, "\($0.version)", "\($0.registrations)",
                        RFC3339.format($0.updatedAt),
                    ]
                }
            ).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}

struct AdminOrder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: "One order: its fields, the times of its versions, its devices and recent pushes."
    )

    @OptionGroup var options: AdminOptions
    @Argument(help: "The order type identifier.") var type: String
    @Argument(help: "The order identifier.") var id: String

    func run() async throws {
        let (order, versions, registrations, pushes) = try await options.withStore { store in
            guard let order = try await store.order(type: type, id: id) else {
                throw CommandFailure("there is no order \(id) of type \(type)")
            }
            return (
                order, try await store.versions(type: type, id: id),
                try await store.registrations(RegistrationFilter(type: type, id: id), limit: 1_000),
                try await store.pushes(PushFilter(type: type, id: id), page: PageRequest(limit: 20)).records
            )
        }
        var document = order.document.json
        if case .object(var fields) = document {
            fields["authenticationToken"] = .string("…")  // a secret: never printed
            document = .object(fields)
        }
        let summary = TextTable(
            ["", ""],
            [
                ["type", type], ["order", id], ["status", order.status.rawValue], ["version", "\(order.version)"],
                ["created", RFC3339.format(order.createdAt)], ["updated", RFC3339.format(order.updatedAt)],
            ],
            header: false
        ).text
        let table =
            summary
            + "\nversions\n"
            + TextTable(
                ["VERSION", "STATUS", "WRITTEN"],
                versions.map {
                    ["\($0.version)", $0.status.rawValue, RFC3339.format($0.updatedAt)]
                }
            ).text
            + "\ndevices\n" + Self.registrationTable(registrations).text
            + "\nrecent pushes\n" + Self.pushTable(pushes).text
        try options.output(
            .object([
                "order": document, "versions": try JSONValue.encoding(versions),
                "registrations": try JSONValue.encoding(registrations), "pushes": try JSONValue.encoding(pushes),
            ]),
            table: table
        )
    }

    static func registrationTable(_ registrations: [Registration]) -> TextTable {
        TextTable(
            ["DEVICE", "TYPE", "ORDER", "PUSH TOKEN", "REGISTERED", "UPDATED"],
            registrations.map {
                [
                    $0.deviceIdentifier, $0.orderTypeIdentifier, $0.orderIdentifier, $0.pushToken,
                    RFC3339.format($0.createdAt), RFC3339.format($0.updatedAt),
                ]
            }
        )
    }

    static func pushTable(_ pushes: [PushRecord]) -> TextTable {
        TextTable(
            ["ID", "ORDER", "DEVICE", "STATUS", "ATTEMPTS", "UPDATED", "LAST ERROR"],
            pushes.map {
                [
                    "\($0.id)", "\($0.orderTypeIdentifier)/\($0.orderIdentifier)", $0.deviceIdentifier, $0.status.rawValue,
                    "\($0.attempts)", RFC3339.format($0.updatedAt), $0.lastError ?? "",
                ]
            }
        )
    }
}

struct AdminRegistrations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registrations",
        abstract: "Device registrations, newest first, by device or by order."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "Only this device.") var device: String?
    @Option(help: "Only this order type.") var type: String?
    @Option(help: "Only this order (with --type).") var order: String?
    @Option(help: "At most this many.") var limit = 100

    func run() async throws {
        let registrations = try await options.withStore { store in
            try await store.registrations(
                RegistrationFilter(device: device, type: type, id: order),
                limit: max(1, min(limit, 10_000))
            )
        }
        try options.output(
            .object(["registrations": try JSONValue.encoding(registrations)]),
            table: AdminOrder.registrationTable(registrations).text
        )
    }
}

struct AdminLogs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logs", abstract: "What devices sent to /v1/log, newest first.")

    @OptionGroup var options: AdminOptions
    @Option(help: "Only entries last received since: RFC 3339 or an age (2h, 7d).") var since: AdminTime?
    @Option(help: "Only entries containing this text (case-insensitive).") var contains: String?
    @Option(help: "At most this many.") var limit = 100
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withStore { store in
            try await store.logs(
                LogFilter(since: since?.date, containing: contains),
                page: PageRequest(limit: max(1, min(limit, 10_000)), before: before)
            )
        }
        try options.output(
            try page.json("logs"),
            table: TextTable(
                ["RECEIVED", "LAST SEEN", "TIMES", "FROM", "MESSAGE"],
                page.records.map {
                    [RFC3339.format($0.receivedAt), RFC3339.format($0.lastSeenAt), "\($0.count)", $0.remoteAddress ?? "", $0.message]
                },
                widths: [20, 20, 8, 40, 100]
            ).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}

struct AdminPushes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushes",
        abstract: "Pushes in the outbox, newest first, with the reason of the last failure."
    )

    @OptionGroup var options: AdminOptions
    @Option(help: "Only pushes in this status: pending, sending, delivered, failed.") var status: PushStatus?
    @Option(help: "At most this many.") var limit = 100
    @Option(help: "The page after this cursor (printed at the end of a full page).") var before: Int64?

    func run() async throws {
        let page = try await options.withStore { store in
            try await store.pushes(PushFilter(status: status), page: PageRequest(limit: max(1, min(limit, 10_000)), before: before))
        }
        try options.output(
            try page.json("pushes"),
            table: AdminOrder.pushTable(page.records).text + (page.next.map { "more: --before \($0)\n" } ?? "")
        )
    }
}

struct AdminStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts: orders, devices, logs, the outbox, and push outcomes over the last hour and day."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        let stats = try await options.withStore { try await $0.stats(now: Date()) }
        func counts<Key: RawRepresentable<String>>(_ values: [Key: Int]) -> String {
            values.isEmpty
                ? "0"
                : values.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }
                    .map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        }
        try options.output(
            try JSONValue.encoding(stats),
            table: TextTable(
                ["", ""],
                [
                    ["orders", "\(stats.orders) (\(counts(stats.ordersByStatus)))"],
                    ["registrations", "\(stats.registrations) on \(stats.devices) devices"],
                    ["device log entries", "\(stats.deviceLogs)"],
                    ["outbox depth", "\(stats.outboxDepth)"],
                    ["pushes", counts(stats.pushesByStatus)],
                    ["pushes, last hour", counts(stats.pushesLastHour)],
                    ["pushes, last day", counts(stats.pushesLastDay)],
                ],
                header: false,
                widths: [20, 200]
            ).text
        )
    }
}

struct AdminResend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resend",
        abstract: "Queue a push to every device registered for an order again."
    )

    @OptionGroup var options: AdminOptions
    @Argument(help: "The order type identifier.") var type: String
    @Argument(help: "The order identifier.") var id: String

    func run() async throws {
        guard let queued = try await options.withStore({ try await $0.resendPushes(type: type, id: id, now: Date()) }) else {
            throw CommandFailure("there is no order \(id) of type \(type)")
        }
        try options.output(
            .object(["pushesQueued": .int(queued)]),
            table: "queued a push for \(queued) device\(queued == 1 ? "" : "s"); the running server sends it\n"
        )
    }
}

struct AdminPrune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete registrations whose pushes failed for good, and old device logs."
    )

    @OptionGroup var options: AdminOptions
    @Flag(help: "Delete registrations whose last push failed permanently.") var failedRegistrations = false
    @Option(help: "Delete device log entries older than this many days.") var logsOlderThan: Int?

    func validate() throws {
        guard failedRegistrations || logsOlderThan != nil else {
            throw ValidationError("say what to prune: --failed-registrations, --logs-older-than DAYS, or both")
        }
        if let days = logsOlderThan, days < 0 { throw ValidationError("--logs-older-than takes a number of days, 0 or more") }
    }

    func run() async throws {
        var result: [String: JSONValue] = [:]
        var lines: [String] = []
        try await options.withStore { store in
            if failedRegistrations {
                let removed = try await store.pruneFailedRegistrations()
                result["registrationsRemoved"] = .int(removed)
                lines.append("removed \(removed) registration\(removed == 1 ? "" : "s") whose pushes failed")
            }
            if let days = logsOlderThan {
                let removed = try await store.pruneLogs(before: Date().addingTimeInterval(-Double(days) * 86_400))
                result["logsRemoved"] = .int(removed)
                lines.append("removed \(removed) device log entr\(removed == 1 ? "y" : "ies") older than \(days) days")
            }
        }
        try options.output(.object(result), table: lines.joined(separator: "\n") + "\n")
    }
}

struct AdminRebuildPackages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild-packages",
        abstract: "Sign every order's package again with the configured certificates (after a renewal)."
    )

    @OptionGroup var options: AdminOptions

    func run() async throws {
        var configuration = try await options.configuration.load()
        if configuration.orderTypes.isEmpty,
            let development = try await ServiceBootstrap.developmentOrderType(configuration, create: false)
        {
            configuration.orderTypes = [development.type]
        }
        // The same loading and checks as serve: an order type whose signing files or template are unusable stops it.
        let report = await ServiceChecks.run(configuration, now: Date())
        guard report.orderTypes.count == configuration.orderTypes.count else {
            throw CommandFailure(report.problems.joined(separator: "\n"))
        }
        // Through the service, as the server writes: each order is read, signed outside any transaction, and stored
        // only if it is still at the version read, so the server keeps serving and writing meanwhile.
        let rebuilt = try await options.withStore { store in
            try await OrderService(
                store: store,
                orderTypes: report.orderTypes,
                webServiceURL: configuration.webServiceURL,
                cacheCapacity: 0
            ).rebuildPackages()
        }
        try options.output(
            .object(["packagesRebuilt": .int(rebuilt)]),
            table: "rebuilt \(rebuilt) package\(rebuilt == 1 ? "" : "s") (orders of unconfigured types are left as they are)\n"
        )
    }
}

/// Aligned columns for people: each cell cut to its column's width with an ellipsis.
struct TextTable {
    let text: String

    init(_ headers: [String], _ rows: [[String]], header: Bool = true, widths: [Int]? = nil) {
        let limits = widths ?? headers.map { _ in 48 }
        func cut(_ cell: String, _ column: Int) -> String {
            let flat = cell.replacingOccurrences(of: "\n", with: " ")
            return flat.count > limits[column] ? String(flat.prefix(limits[column] - 1)) + "…" : flat
        }
        let body = rows.map { $0.enumerated().map { cut($1, $0) } }
        let all = (header ? [headers] : []) + body
        let columnWidths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var lines = all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: columnWidths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        if rows.isEmpty { lines.append("(none)") }
        text = lines.joined(separator: "\n") + "\n"
    }
}
