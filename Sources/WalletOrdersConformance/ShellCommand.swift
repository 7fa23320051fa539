import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A user's shell command (`--update`, `--unchanged-update`), run with `/bin/sh -c` in a process group of its own,
/// its output (standard output and error together) kept, killed with its children when it runs too long.
///
/// Spawned with `posix_spawn` and reaped with `waitpid` rather than Foundation's `Process`, which on Linux sees an exit
/// through a descriptor the child inherits: a command that leaves a program running in the background would never
/// be seen to finish.
struct ShellCommand: Sendable {
    /// How a command ended.
    struct Result: Sendable {
        /// The exit status, 128 + the signal when a signal ended it; nil when it could not be started.
        let status: Int32?
        let output: String
        let duration: Duration
        let timedOut: Bool

        var succeeded: Bool { status == 0 && !timedOut }

        /// One line for a report: how it ended and the end of its output.
        var summary: String {
            let ending =
                timedOut ? "did not finish in time (killed)" : status.map { "exited \($0)" } ?? "could not be started"
            let tail = output.trimmingCharacters(in: .whitespacesAndNewlines).suffix(300)
            return tail.isEmpty ? ending : "\(ending): \(tail)"
        }
    }

    let command: String
    /// Variables added to the kit's environment for the command.
    let environment: [String: String]

    /// Runs the command, waiting at most `timeout`.
    func run(timeout: Duration) async -> Result {
        let start = ContinuousClock.now
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("wallet-orders-conformance-\(UUID().uuidString).out").path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            return Result(status: nil, output: "cannot write \(outputPath)", duration: .zero, timedOut: false)
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid: pid_t
        do {
            pid = try spawn(outputPath: outputPath)
        } catch {
            return Result(status: nil, output: "\(error)", duration: .zero, timedOut: false)
        }
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask { .exited(await Self.wait(for: pid)) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            if case .timedOut = first {
                // Too long: the whole group goes, then the reaper above returns.
                kill(-pid, SIGTERM)
                try? await Task.sleep(for: .seconds(2))
                kill(-pid, SIGKILL)
                _ = await group.next()
            }
            group.cancelAll()
            return first
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        switch ending {
        case .exited(let status):
            return Result(status: status, output: output, duration: ContinuousClock.now - start, timedOut: false)
        case .timedOut:
            return Result(status: nil, output: output, duration: ContinuousClock.now - start, timedOut: true)
        }
    }

    private enum Ending: Sendable {
        case exited(Int32?)
        case timedOut
    }

    private func spawn(outputPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, so that a timeout ends the command's children too.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let arguments = ["/bin/sh", "-c", command]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw SpawnError(description: "cannot start /bin/sh: \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// Waits for `pid` on a thread of its own; answers its status as a shell reports it.
    private static func wait(for pid: pid_t) async -> Int32? {
        await withCheckedContinuation { continuation in
            Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 {
                    guard errno == EINTR else {
                        continuation.resume(returning: nil)
                        return
                    }
                }
                // WIFEXITED / WEXITSTATUS, and 128 + the signal otherwise.
                continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
            }.start()
        }
    }

    private struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }
}
