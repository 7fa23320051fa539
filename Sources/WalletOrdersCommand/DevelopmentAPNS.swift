import Foundation
import WalletOrdersAPNSServer
import WalletOrdersApplication
import WalletOrdersCrypto

/// The local APNs that `apns-sandbox` and `device watch` run on the development keys in a folder: it trusts the
/// folder's APNs key and keeps its TLS identity there, so a service pointed at it keeps trusting it across restarts.
struct DevelopmentAPNS {
    let apns: LocalAPNS
    let listener: LocalAPNS.Listener
    /// The CA file a service trusts it with.
    let caFile: String

    /// The base URL to point a service at.
    var url: String { "https://127.0.0.1:\(listener.port)" }

    /// The two variables that point `serve` (or `make run`) at it.
    var environment: String { "WALLET_ORDERS_APNS_ENVIRONMENT=\(url) WALLET_ORDERS_APNS_CA=\(caFile)" }

    /// Starts listening on `port` with the keys `keys` holds (`dev.env`, `apns-public.pem`).
    static func start(
        keys: String,
        port: Int,
        onPush: @escaping @Sendable (LocalAPNS.ReceivedPush) -> Void
    )
        async throws -> DevelopmentAPNS
    {
        let folder = URL(fileURLWithPath: keys)
        let settings = try? await ServiceConfiguration.orderType(
            environmentFile: folder.appendingPathComponent("dev.env").path
        )
        guard let settings, let keyID = settings.apnsKeyID,
            let publicPEM = FileManager.default.contents(atPath: folder.appendingPathComponent("apns-public.pem").path),
            let publicKey = try? PublicKey(pem: publicPEM)
        else {
            throw CommandFailure(
                "\(keys) holds no development APNs key: run `wallet-orders keys dev --out \(keys)` "
                    + "(or `make run` once, which makes data/dev-keys) first"
            )
        }
        let identity = try LocalAPNS.TLSIdentity(folder: folder)
        let apns = LocalAPNS(
            publicKeys: [keyID: publicKey],
            teamID: settings.apnsTeamID ?? settings.teamIdentifier,
            topics: [settings.identifier],
            recordsPushes: false,
            onPush: onPush
        )
        let listener: LocalAPNS.Listener
        do {
            listener = try await apns.listen(port: port, tls: identity.serverConfiguration())
        } catch {
            throw CommandFailure("cannot listen on port \(port) (is `apns-sandbox` or another `device watch` running?): \(error)")
        }
        return DevelopmentAPNS(
            apns: apns,
            listener: listener,
            caFile: LocalAPNS.TLSIdentity.certificateAuthorityFile(in: folder).path
        )
    }

    /// One line about a push, as `apns-sandbox` prints it.
    static func describe(_ push: LocalAPNS.ReceivedPush) -> String {
        "push \(push.status)\(push.reason.map { " \($0)" } ?? "") topic=\(push.topic) token=\(push.deviceToken) "
            + "type=\(push.pushType ?? "-") priority=\(push.priority ?? "-") body=\(push.body)"
    }
}

/// Writes `line` and a newline to standard output at once: print() would sit in a buffer when stdout is not a
/// terminal, and a person or a test watching the output must see each step when it happens.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
