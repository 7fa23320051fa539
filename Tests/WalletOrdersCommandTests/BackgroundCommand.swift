import Foundation
import Testing
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersTesting

/// Runs `wallet-orders keys dev --out <folder>/keys` and answers the settings its dev.env holds.
func makeDevelopmentKeys(in folder: TemporaryDirectory) async throws -> [String: String] {
    let made = try await Command.run(Command.walletOrdersBinary, ["keys", "dev", "--out", folder.path("keys")])
    #expect(made.status == 0, "\(made.error)")
    let type = try await ServiceConfiguration.orderType(environmentFile: folder.path("keys/dev.env"))
    return try #require(type, "keys dev wrote its settings").environment
}

/// `wallet-orders` running in the background for a test, its output collected in a file of `folder`.
///
/// `@unchecked Sendable`: both stored properties are constants, and the process is only signalled, waited for
/// and asked its state after it started, which Foundation's `Process` allows from any thread.
final class BackgroundCommand: @unchecked Sendable {
    let process = Process()
    private let outputPath: String

    init(
        _ arguments: [String],
        in folder: TemporaryDirectory,
        name: String,
        directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws {
        outputPath = try folder.write("\(name).out", Data())
        process.executableURL = URL(fileURLWithPath: Command.walletOrdersBinary)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }
            .merging(environment) { $1 }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Everything the command has printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` (generous: a cold machine starts slowly) for the output to contain `text`; answers the
    /// output.
    @discardableResult
    func waitFor(_ text: String, seconds: Int = 120) async throws -> String {
        _ = await eventually(timeout: .seconds(seconds), interval: .milliseconds(100)) { output.contains(text) || !process.isRunning }
        return output
    }

    /// Stops the command and answers whether it exited cleanly on the signal, waiting on a thread of its own. A
    /// command still running 20 s after the signal is killed (SIGKILL) and answers false, so that a server stuck on a
    /// request fails its test rather than hanging the whole run.
    func stopped() async -> Bool {
        let process = process
        return (try? await onOwnThread { Self.stop(process) }) ?? false
    }

    /// Stops the command without waiting for it (for `defer` and `deinit`): SIGTERM now, and SIGKILL from a thread of
    /// its own if it still runs 20 s later.
    func stop() {
        guard process.isRunning else { return }
        let process = process
        process.terminate()
        Thread { _ = Self.stop(process) }.start()
    }

    private static func stop(_ process: Process) -> Bool {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        return process.terminationStatus == 0 || process.terminationReason == .uncaughtSignal
    }

    deinit { stop() }
}

/// `wallet-orders serve` on a free port with no configuration but `environment`, as `make run` starts it: it
/// makes development keys and a merchant key in `<folder>/data/`.
struct DevelopmentServer {
    static let repository = SampleOrder.templateFolder.deletingLastPathComponent().deletingLastPathComponent()

    let command: BackgroundCommand
    let banner: String
    let base: String
    let merchantKey: String

    /// `arguments` go after serve's own (`--no-local-apns` keeps development pushes waiting in the outbox).
    static func start(
        in folder: TemporaryDirectory,
        name: String = "serve",
        arguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> DevelopmentServer {
        let command = try BackgroundCommand(
            ["serve", "--port", "0", "--database", folder.path("data/orders.sqlite")] + arguments,
            in: folder,
            name: name,
            directory: repository,
            environment: environment
        )
        let banner = try await command.waitFor("Create a first order")
        let port = try #require(banner.firstMatch(of: /serving on http:\/\/127\.0\.0\.1:(\d+)/)?.1, "\(banner)")
        let key = try String(contentsOfFile: folder.path("data/merchant-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return DevelopmentServer(command: command, banner: banner, base: "http://127.0.0.1:\(port)", merchantKey: key)
    }

    /// curl from the repository folder, with `-s`; answers what it printed.
    func curl(_ arguments: [String]) async throws -> String {
        try await Command.run("curl", ["-s"] + arguments, directory: Self.repository.path).output
    }

    /// Creates Examples/order.json through the merchant API; answers its type, identifier and token.
    func createOrder() async throws -> (type: String, id: String, token: String) {
        let output = try await curl([
            "-X", "POST", "\(base)/api/v1/orders", "-H", "Authorization: Bearer \(merchantKey)",
            "-H", "Content-Type: application/json", "-d", "@Examples/order.json",
        ])
        let details = try JSONValue.parse(Data(output.utf8))["orderDetails"]
        return (
            try #require(details?["orderTypeIdentifier"]?.stringValue, "\(output)"),
            try #require(details?["orderIdentifier"]?.stringValue),
            try #require(details?["authenticationToken"]?.stringValue)
        )
    }

    /// Registers `device` for the order with `pushToken`.
    func register(_ order: (type: String, id: String, token: String), device: String, pushToken: String) async throws {
        _ = try await curl([
            "-X", "POST", "\(base)/v1/devices/\(device)/registrations/\(order.type)/\(order.id)",
            "-H", "Authorization: AppleOrder \(order.token)", "-d", #"{"pushToken":"\#(pushToken)"}"#,
        ])
    }

    /// PATCHes the order through the merchant API; answers the body and the status code on the last line.
    func patch(_ order: (type: String, id: String, token: String), _ json: String) async throws -> String {
        try await curl([
            "-w", "\n%{http_code}", "-X", "PATCH", "\(base)/api/v1/orders/\(order.type)/\(order.id)",
            "-H", "Authorization: Bearer \(merchantKey)", "-H", "Content-Type: application/merge-patch+json", "-d", json,
        ])
    }
}
