import ArgumentParser
import Foundation
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersServer

/// `wallet-orders apns-sandbox`: a local APNs to watch pushes arrive.
struct APNSSandbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sandbox",
        abstract: "Run a local stand-in for APNs (HTTP/2 over TLS) and print every push it receives.",
        discussion: """
        It checks each push as APNs would: path, apns-topic, apns-push-type background, apns-priority 5, the {} \
        body, and the provider token's ES256 signature and age against the development APNs key.
        """
    )

    @Option(help: "The port to listen on.")
    var port = 2197

    @Option(help: "The folder `keys dev` (or the first `serve`) wrote: dev.env and apns-public.pem are read from it.")
    var keys = "data/dev-keys"

    @Flag(help: "Do not print each push (for load tests).")
    var quiet = false

    func run() async throws {
        let folder = URL(fileURLWithPath: keys)
        let settings = try? await ServiceConfiguration.orderType(
            environmentFile: folder.appendingPathComponent("dev.env").path)
        guard let settings, let keyID = settings.apnsKeyID,
              let publicPEM = FileManager.default.contents(atPath: folder.appendingPathComponent("apns-public.pem").path),
              let publicKey = try? PublicKey(pem: publicPEM) else {
            throw CommandFailure("\(keys) holds no development APNs key: run `wallet-orders keys dev --out \(keys)` first")
        }
        let identity = try LocalAPNS.TLSIdentity()
        let caFile = folder.appendingPathComponent("local-apns-ca.pem").path
        try Data(identity.certificateAuthority.pem.utf8).write(to: URL(fileURLWithPath: caFile))
        let apns = LocalAPNS(
            publicKeys: [keyID: publicKey], teamID: settings.apnsTeamID ?? settings.teamIdentifier,
            topics: [settings.identifier], recordsPushes: false,
            onPush: { [quiet] push in
                guard !quiet else { return }
                let line = "push \(push.status)\(push.reason.map { " \($0)" } ?? "") topic=\(push.topic) "
                    + "token=\(push.deviceToken) type=\(push.pushType ?? "-") priority=\(push.priority ?? "-") body=\(push.body)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            })
        let listener = try await apns.listen(port: port, tls: identity.serverConfiguration())
        let text = """
            Local APNs listening on https://127.0.0.1:\(listener.port) (HTTP/2, TLS). Point the service at it:
              WALLET_ORDERS_APNS_ENVIRONMENT=https://127.0.0.1:\(listener.port) WALLET_ORDERS_APNS_CA=\(caFile)

            """
        FileHandle.standardOutput.write(Data(text.utf8))
        await listener.run()
    }
}
