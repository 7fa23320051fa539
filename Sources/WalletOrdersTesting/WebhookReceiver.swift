import Foundation

/// A real HTTP receiver of webhooks on loopback (`Tests/webhooks/receiver.py`), whose answers a test sets, and
/// the Standard Webhooks package's check of every signature it received.
public final class WebhookReceiver: Sendable {
    /// One webhook it answered, its signature checked by the `standardwebhooks` package.
    public struct Verified: Sendable {
        public let id: String
        public let status: Int
        public let type: String
        public let data: [String: String]
        /// How many `v1,` signatures it carried.
        public let signatures: Int
    }

    /// Where to send webhooks: `http://127.0.0.1:<port>/`.
    public let url: String
    private let server: LoopbackScript
    private let folder: TemporaryDirectory
    private let script = SampleOrder.repository.appendingPathComponent("Tests/webhooks/receiver.sh").path

    public init() async throws {
        let folder = try TemporaryDirectory("webhooks")
        self.folder = folder
        server = try await LoopbackScript(script, arguments: { ["serve", $0, folder.path("log")] }, name: "webhook receiver", in: folder)
        url = "http://127.0.0.1:\(server.port)/"
    }

    /// Answers `status` from now on, after waiting `delay` seconds.
    public func answer(_ status: Int, delay: Double = 0) async throws {
        let result = try await Command.run(
            "curl",
            ["-sf", "-X", "POST", url + "control", "-d", #"{"status": \#(status), "delay": \#(delay)}"#]
        )
        guard result.status == 0 else { throw Command.CommandError("the receiver did not take its answer: \(result.error)") }
    }

    /// The ids of the webhooks received so far, answered or not, in order of arrival.
    public func received() -> [String] {
        lines().filter { $0["event"] as? String == "received" }.compactMap { $0["id"] as? String }
    }

    /// How many webhooks were answered with `status`.
    public func answered(_ status: Int = 200) -> Int {
        lines().filter { $0["event"] as? String == "answered" && $0["status"] as? Int == status }.count
    }

    /// Waits up to `seconds` (a minute at least) until `count` webhooks were answered 2xx; answers whether they were.
    public func waitForDeliveries(_ count: Int, seconds: Int) async throws -> Bool {
        await eventually(timeout: .seconds(max(seconds, 60)), interval: .milliseconds(100)) { answered(200) >= count }
    }

    /// Every webhook answered 2xx, its signature checked against `secrets` by the `standardwebhooks` package;
    /// throws when any signature is wrong.
    public func verified(secrets: [String]) async throws -> [Verified] {
        let result = try await Command.run(script, ["verify", folder.path("log")] + secrets)
        guard result.status == 0,
            let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let entries = json["verified"] as? [[String: Any]]
        else { throw Command.CommandError("signatures the Standard Webhooks package refused: \(result.output)\(result.error)") }
        return entries.compactMap { entry in
            guard let id = entry["id"] as? String, let status = entry["status"] as? Int, (200..<300).contains(status),
                let payload = entry["payload"] as? [String: Any], let type = payload["type"] as? String
            else { return nil }
            let data = (payload["data"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            return Verified(id: id, status: status, type: type, data: data, signatures: entry["signatures"] as? Int ?? 0)
        }
    }

    private func lines() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: folder.path("log"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
