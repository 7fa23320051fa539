import Foundation
import Testing
import WalletOrdersTesting

/// Runs `wallet-orders keys dev --out <folder>/keys` and answers the settings its dev.env holds.
func makeDevelopmentKeys(in folder: TemporaryDirectory) throws -> [String: String] {
    let made = try Command.run(Command.walletOrdersBinary, ["keys", "dev", "--out", folder.path("keys")])
    #expect(made.status == 0, "\(made.error)")
    var environment: [String: String] = [:]
    for line in try String(contentsOfFile: folder.path("keys/dev.env"), encoding: .utf8).split(separator: "\n")
    where !line.hasPrefix("#") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { environment[String(parts[0])] = String(parts[1]) }
    }
    return environment
}

/// `wallet-orders` running in the background for a test, its output collected in a file of `folder`.
final class BackgroundCommand {
    let process = Process()
    private let outputPath: String

    init(_ arguments: [String], in folder: TemporaryDirectory, name: String, directory: URL? = nil,
         environment: [String: String] = [:]) throws {
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

    /// Waits up to ten seconds for the output to contain `text`; answers the output.
    @discardableResult
    func waitFor(_ text: String) async throws -> String {
        for _ in 0..<100 where !output.contains(text) {
            try await Task.sleep(for: .milliseconds(100))
        }
        return output
    }

    /// Stops the command; answers whether it exited cleanly on the signal.
    @discardableResult
    func stop() -> Bool {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus == 0 || process.terminationReason == .uncaughtSignal
    }

    deinit { stop() }
}
