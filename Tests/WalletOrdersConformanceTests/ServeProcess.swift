import Foundation
import WalletOrdersTesting

/// `wallet-orders serve` running for a test, its output collected in a file; stopped with SIGTERM, then SIGKILL if
/// it lingers.
///
/// `@unchecked Sendable`: its properties are constants, and Foundation's `Process` may be signalled and asked its
/// state from any thread once it runs.
final class ServeProcess: @unchecked Sendable {
    private let process = Process()
    private let outputPath: String

    init(_ arguments: [String], environment: [String: String], in folder: TemporaryDirectory) throws {
        outputPath = try folder.write("serve.out", Data())
        process.executableURL = URL(fileURLWithPath: Command.walletOrdersBinary)
        process.arguments = ["serve"] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WALLET_ORDERS_") }
            .merging(environment) { $1 }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Everything it printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` for the output to hold `text` (or the process to end); answers whether it does.
    func waitFor(_ text: String, seconds: Int = 120) async -> Bool {
        _ = await eventually(timeout: .seconds(seconds), interval: .milliseconds(100)) { self.output.contains(text) || !self.process.isRunning }
        return output.contains(text)
    }

    /// SIGTERM now, and SIGKILL from a thread of its own if it still runs 20 s later.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let process = process
        Thread {
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }.start()
    }

    deinit { stop() }
}
