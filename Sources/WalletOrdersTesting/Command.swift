import Foundation

/// Runs other programs (`openssl`, `unzip`, the `wallet-orders` binary) the way a user would.
public enum Command {
    /// What a finished program left behind.
    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let error: String
    }

    /// Runs `executable` (looked up on PATH unless it has a slash) with `arguments` and waits for it, on a thread of
    /// its own (see `onOwnThread`).
    @discardableResult
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: String? = nil,
        input: Data? = nil
    ) async throws -> Result {
        try await onOwnThread {
            try runBlocking(executable, arguments, environment: environment, directory: directory, input: input)
        }
    }

    /// `run`, waiting on the calling thread: only where nothing can be awaited (an exit handler, a `defer`, a
    /// benchmark's top level) or on a thread of its own.
    ///
    /// Spawned with `posix_spawn` and reaped with `waitpid`, not with Foundation's `Process`: on Linux that
    /// notices an exit through a descriptor the child inherits, so a program that leaves a daemon behind
    /// (`pg_ctl start`) would never be seen to finish.
    @discardableResult
    public static func runBlocking(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        directory: String? = nil,
        input: Data? = nil
    ) throws -> Result {
        // Files rather than pipes: a chatty program can never stall on a full pipe.
        let scratch = try TemporaryDirectory("command")
        let inputPath = try scratch.write("in", input ?? Data())
        let outputPath = try scratch.write("out", Data())
        let errorPath = try scratch.write("err", Data())

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_TRUNC, 0o600)
        // glibc's posix_spawn_file_actions_addchdir_np is not visible from Swift: `env -C` changes folder instead.
        let command = directory.map { ["/usr/bin/env", "-C", $0, executable] + arguments } ?? [executable] + arguments

        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }
            .map { "\($0.key)=\($0.value)" }
        let status = try withCStrings(command) { argv in
            try withCStrings(variables) { envp in
                var pid = pid_t()
                let spawned =
                    command[0].contains("/")
                    ? posix_spawn(&pid, command[0], &actions, nil, argv, envp)
                    : posix_spawnp(&pid, command[0], &actions, nil, argv, envp)
                guard spawned == 0 else {
                    throw CommandError("cannot start \(executable): \(String(cString: strerror(spawned)))")
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 {
                    guard errno == EINTR else { throw CommandError("cannot wait for \(executable)") }
                }
                // WIFEXITED / WEXITSTATUS, and 128 + the signal otherwise, as a shell reports it.
                return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
        }
        return Result(
            status: status,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        )
    }

    /// A program that could not be started or waited for.
    public struct CommandError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `strings` as a NULL-terminated array of C strings, alive for the duration of `body`.
    private static func withCStrings<Value>(
        _ strings: [String],
        _ body: ([UnsafeMutablePointer<CChar>?]) throws -> Value
    ) rethrows -> Value {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return try body(pointers)
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
