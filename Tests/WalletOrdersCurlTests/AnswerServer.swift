import Foundation
import WalletOrdersTesting

/// A real HTTP/1.1 server on loopback (`Tests/curl/answer.py`) that answers `/<status>/<bytes>` with that status and
/// that many bytes of body.
final class AnswerServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let base: String
    private let server: LoopbackScript
    private let folder: TemporaryDirectory

    init() async throws {
        let folder = try TemporaryDirectory("curl-answers")
        self.folder = folder
        let script = SampleOrder.repository.appendingPathComponent("Tests/curl/answer.py").path
        server = try await LoopbackScript(script, arguments: { [$0] }, name: "answer server", in: folder)
        base = "http://127.0.0.1:\(server.port)"
    }

    /// The URL answered with `status` and `bytes` bytes of body.
    func url(_ status: Int, bytes: Int = 0) -> String {
        "\(base)/\(status)/\(bytes)"
    }
}
