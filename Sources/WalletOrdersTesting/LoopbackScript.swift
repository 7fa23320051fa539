import Foundation

/// A test's helper server written as a script (a receiver of webhooks or of traces): started with its arguments and
/// the path of a file where it writes the port it listens on, waited for until it has, and killed and reaped when
/// this goes. Spawned and reaped directly, not with Foundation's `Process`, whose wait for the exit hung on Linux.
///
/// `@unchecked Sendable`: the stored properties are constants, and the child is only signalled and waited for.
public final class LoopbackScript: @unchecked Sendable {
    /// The port the script listens on, on 127.0.0.1.
    public let port: String
    private let pid: pid_t

    /// Runs `script` with `arguments`, the port file's path among them where `portFile` stands; `name` says what it is
    /// in errors. The first run may make a venv and install a package from PyPI, so it may take up to two minutes.
    public init(_ script: String, arguments: (_ portFile: String) -> [String], name: String, in folder: TemporaryDirectory) async throws {
        let portFile = folder.path("port")
        let errorPath = try folder.write("err", Data())
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_TRUNC, 0o600)
        let argv = ([script] + arguments(portFile)).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        guard posix_spawn(&child, script, &actions, nil, argv, environ) == 0 else {
            throw Command.CommandError("cannot start the \(name)")
        }
        pid = child
        _ = await eventually(timeout: .seconds(180), interval: .milliseconds(100)) {
            ((try? String(contentsOfFile: portFile, encoding: .utf8)).map { !$0.isEmpty } ?? false)
                || waitpid(child, nil, WNOHANG) == child
        }
        guard let port = try? String(contentsOfFile: portFile, encoding: .utf8), !port.isEmpty else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            throw Command.CommandError(
                "the \(name) did not start: \((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")"
            )
        }
        self.port = port
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}
