import Foundation
import WalletOrdersTesting

/// A real OTLP/HTTP traces endpoint on loopback (`Tests/tracing/receiver.py`): it answers every export as a collector
/// does and logs each one, its spans decoded with OpenTelemetry's own protobuf messages.
///
/// `@unchecked Sendable`: the stored properties are constants, and the child is only signalled and waited for.
final class TraceReceiver: @unchecked Sendable {
    /// One POST it received.
    struct Export {
        let path: String
        let contentType: String?
        let spans: [Span]
        /// Why the body did not decode as an `ExportTraceServiceRequest`, when it did not.
        let error: String?
    }

    /// One span of an export, with its resource's attributes.
    struct Span {
        let name: String
        /// OTLP's `SpanKind`: 2 is a server's span.
        let kind: Int
        let attributes: [String: String]
        let resource: [String: String]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The collector's base URL, `http://127.0.0.1:<port>`, as `tracingEndpoint` takes it.
    let endpoint: String
    private let pid: pid_t
    private let folder: TemporaryDirectory
    private let script = SampleOrder.repository.appendingPathComponent("Tests/tracing/receiver.sh").path

    init() async throws {
        folder = try TemporaryDirectory("traces")
        let portFile = folder.path("port")
        // Spawned and reaped directly, not with Foundation's `Process`, as the webhook receiver is.
        let arguments = [script, portFile, folder.path("log")]
        let errorPath = try folder.write("err", Data())
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        guard posix_spawn(&child, script, &actions, nil, argv, environ) == 0 else {
            throw Failure(description: "cannot start the trace receiver")
        }
        pid = child
        // The first run may make a venv and install opentelemetry-proto from PyPI.
        for _ in 0..<1_200 where !FileManager.default.fileExists(atPath: portFile) {
            try await Task.sleep(for: .milliseconds(100))
        }
        guard let port = try? String(contentsOfFile: portFile, encoding: .utf8) else {
            kill(pid, SIGKILL)
            throw Failure(
                description: "the trace receiver did not start: \((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")"
            )
        }
        endpoint = "http://127.0.0.1:\(port)"
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// Every export received so far, in order.
    func exports() -> [Export] {
        guard let text = try? String(contentsOfFile: folder.path("log"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let spans = (entry["spans"] as? [[String: Any]] ?? []).map { span in
                Span(
                    name: span["name"] as? String ?? "",
                    kind: span["kind"] as? Int ?? 0,
                    attributes: (span["attributes"] as? [String: Any] ?? [:]).mapValues { "\($0)" },
                    resource: (span["resource"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
                )
            }
            return Export(
                path: entry["path"] as? String ?? "",
                contentType: entry["contentType"] as? String,
                spans: spans,
                error: entry["error"] as? String
            )
        }
    }

    /// Every span received so far.
    var spans: [Span] { exports().flatMap(\.spans) }
}
