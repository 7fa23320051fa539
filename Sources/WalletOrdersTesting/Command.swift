import Foundation

/// Runs other programs (`openssl`, `unzip`, the `wallet-orders` binary) the way a user would.
public enum Command {
    /// What a finished program left behind.
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let error: String
    }

    /// Runs `executable` (looked up on PATH unless it has a slash) with `arguments` and waits for it.
    @discardableResult
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: String? = nil,
        input: Data? = nil
    ) throws -> Result {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // Files rather than pipes: a chatty program can never stall on a full pipe.
        let scratch = try TemporaryDirectory("command")
        try scratch.write("out", Data())
        try scratch.write("err", Data())
        let output = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("out"))
        let error = try FileHandle(forWritingTo: scratch.url.appendingPathComponent("err"))
        defer {
            try? output.close()
            try? error.close()
        }
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: (try? String(contentsOfFile: scratch.path("out"), encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: scratch.path("err"), encoding: .utf8)) ?? "")
    }

    /// The built `wallet-orders` binary next to the running test bundle.
    public static var walletOrdersBinary: String {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // Swift Testing on Linux runs `<name>.xctest` directly; on some setups it sits inside a bundle folder.
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("wallet-orders").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return ".build/debug/wallet-orders"
    }
}
