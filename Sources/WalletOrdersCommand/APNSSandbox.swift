import ArgumentParser
import Foundation

/// `wallet-orders apns-sandbox`: a local APNs to watch pushes arrive.
struct APNSSandbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-sandbox",
        abstract: "Run a local stand-in for APNs (HTTP/2 over TLS) and print every push it receives.",
        discussion: """
            It checks each push as APNs would: path, apns-topic, apns-push-type background, apns-priority 5, the {} \
            body, and the provider token's ES256 signature and age against the development APNs key. Its TLS identity \
            is kept in the keys folder (local-apns-ca.pem is the CA to trust), so a restart needs no restart of serve. \
            `device watch` runs the same stand-in and hands the pushes for its token to a simulated device.
            """
    )

    @Option(help: "The port to listen on.")
    var port = 2197

    @Option(help: "The folder `keys dev` (or the first `serve`) wrote: dev.env and apns-public.pem are read from it.")
    var keys = "data/dev-keys"

    @Flag(help: "Do not print each push (for load tests).")
    var quiet = false

    func run() async throws {
        let sandbox = try await DevelopmentAPNS.start(keys: keys, port: port) { [quiet] push in
            if !quiet { printLine(DevelopmentAPNS.describe(push)) }
        }
        printLine(
            """
            Local APNs listening on \(sandbox.url) (HTTP/2, TLS). Point the service at it:
              \(sandbox.environment)

            """
        )
        await sandbox.listener.run()
    }
}
