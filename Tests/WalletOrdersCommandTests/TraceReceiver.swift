import Foundation
import WalletOrdersTesting

/// A real OTLP/HTTP traces endpoint on loopback (`Tests/tracing/receiver.py`): it answers every export as a collector
/// does and logs each one, its spans decoded with OpenTelemetry's own protobuf messages.
final class TraceReceiver: Sendable {
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

    /// The collector's base URL, `http://127.0.0.1:<port>`, as `tracingEndpoint` takes it.
    let endpoint: String
    private let server: LoopbackScript
    private let folder: TemporaryDirectory

    init() async throws {
        let folder = try TemporaryDirectory("traces")
        self.folder = folder
        let script = SampleOrder.repository.appendingPathComponent("Tests/tracing/receiver.sh").path
        server = try await LoopbackScript(script, arguments: { [$0, folder.path("log")] }, name: "trace receiver", in: folder)
        endpoint = "http://127.0.0.1:\(server.port)"
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
