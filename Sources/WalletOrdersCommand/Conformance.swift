import ArgumentParser
import Foundation
import WalletOrdersAPNSServer
import WalletOrdersConformance
import WalletOrdersCrypto
import WalletOrdersDevice

/// `wallet-orders conformance`: check any Wallet Orders web service the way Wallet talks to it.
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a Wallet Orders web service (ours or anyone's) against Apple's protocol, rule by rule.",
        discussion: """
            Give it the orderDetails Apple Pay would hand Wallet. It fetches and checks the package as Wallet does, \
            tries wrong tokens, HTTP caching and HEAD, registers a simulated device, asks which orders changed with \
            no tag, an empty tag and its own tag, and posts to /v1/log. With --update (a shell command that makes \
            the server change the order) it follows the update: with --apns, the push to its token on a local APNs \
            the server is configured to push to; then the listing and the fetch of the new version. \
            --unchanged-update (a command that "updates" the order with what it already holds) checks that such an \
            update is neither listed nor pushed. It unregisters at the end.

            Every rule has an identifier, Apple's words and page, a level (must or should) and a result: pass, fail \
            with what the server answered, or skipped with why. The exit status is 0 only when no "must" failed. \
            See docs/conformance.md.
            """
    )

    @Option(
        name: .customLong("order-details"),
        help: "A JSON file with orderDetails (the merchant API's answer to creating an order will do); - for stdin."
    )
    var orderDetails: String?

    @Option(name: .customLong("order-type-identifier"), help: "Instead of --order-details: the order type identifier.")
    var orderTypeIdentifier: String?

    @Option(name: .customLong("order-identifier"), help: "Instead of --order-details: the order identifier.")
    var orderIdentifier: String?

    @Option(name: .customLong("web-service-url"), help: "Instead of --order-details: the web service URL.")
    var webServiceURL: String?

    @Option(
        name: .customLong("authentication-token"),
        help: "Instead of --order-details: the order's token (visible to other users of the machine; a file is not)."
    )
    var authenticationToken: String?

    @Option(help: "Root certificates (PEM) packages must chain to, instead of Apple's: a development chain's root.")
    var ca: String?

    @Option(name: .customLong("https-ca"), help: "A CA (PEM) to trust for an https web service, besides the system's.")
    var httpsCA: String?

    @Flag(name: .customLong("allow-http"), help: "Accept a plain-http web service (a development server): package.https is skipped.")
    var allowHTTP = false

    @Option(help: "A shell command that makes the server change the order (run with /bin/sh -c).")
    var update: String?

    @Option(
        name: .customLong("unchanged-update"),
        help: "A shell command that makes the server update the order with what it already holds (nothing changes)."
    )
    var unchangedUpdate: String?

    @Option(help: "HOST:PORT for a local APNs the server under test is configured to push to.")
    var apns: String?

    @Option(
        name: .customLong("apns-tls-folder"),
        help: "Where the local APNs keeps its TLS identity; the server must trust local-apns-ca.pem in it."
    )
    var apnsTLSFolder = "conformance-apns"

    @Flag(
        name: .customLong("make-apns-tls"),
        help: "Only make (or keep) the local APNs' TLS identity in --apns-tls-folder, print its CA file and exit."
    )
    var makeAPNSTLS = false

    @Option(name: .customLong("apns-key"), help: "The order type's APNs key: its public half (PEM) or the .p8 itself.")
    var apnsKey: String?

    @Option(name: .customLong("apns-key-id"), help: "The APNs key's ID (with --apns-key).")
    var apnsKeyID: String?

    @Option(name: .customLong("apns-team-id"), help: "The team the APNs key belongs to (with --apns-key).")
    var apnsTeamID: String?

    @Option(name: .customLong("push-deadline"), help: "Seconds to wait for a push, an update to show, and each command.")
    var pushDeadline = 60

    @Option(name: .customLong("quiet-period"), help: "Seconds to watch for a push after --unchanged-update.")
    var quietPeriod = 3

    @Option(name: .customLong("request-timeout"), help: "Seconds one request may take.")
    var requestTimeout = 30

    @Flag(help: "Print the report as JSON instead of a table.")
    var json = false

    @Option(help: "Also write the report as JUnit XML to this file, for CI.")
    var junit: String?

    func validate() throws {
        if makeAPNSTLS { return }
        let flags = [orderTypeIdentifier, orderIdentifier, webServiceURL, authenticationToken]
        if orderDetails == nil, flags.contains(where: { $0 == nil }) {
            throw ValidationError(
                "give --order-details FILE, or all four of --order-type-identifier, --order-identifier, "
                    + "--web-service-url and --authentication-token"
            )
        }
        if orderDetails != nil, flags.contains(where: { $0 != nil }) {
            throw ValidationError("give --order-details or the four values, not both")
        }
        if apnsKey != nil, apnsKeyID == nil || apnsTeamID == nil {
            throw ValidationError("--apns-key needs --apns-key-id and --apns-team-id")
        }
        if apns == nil, apnsKey != nil { throw ValidationError("--apns-key needs --apns") }
        if let apns, Self.hostAndPort(apns) == nil { throw ValidationError("--apns takes HOST:PORT, as 127.0.0.1:2197") }
        if pushDeadline < 1 || quietPeriod < 0 || requestTimeout < 1 { throw ValidationError("the waits must be positive") }
    }

    func run() async throws {
        if makeAPNSTLS {
            _ = try apnsIdentity()
            printLine(LocalAPNS.TLSIdentity.certificateAuthorityFile(in: URL(fileURLWithPath: apnsTLSFolder)).path)
            return
        }
        let configuration = try makeConfiguration()
        if let apns = configuration.apns {
            let ca = LocalAPNS.TLSIdentity.certificateAuthorityFile(in: URL(fileURLWithPath: apnsTLSFolder)).path
            Self.inform("Local APNs for the server's pushes on https://\(apns.host):\(apns.port) (it must trust \(ca)).")
        }
        let report: ConformanceReport
        do {
            report = try await ConformanceKit.run(configuration)
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        if let junit {
            do {
                try Data(report.junit.utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
            } catch {
                throw CommandFailure("\(junit): cannot write the JUnit report: \(error)")
            }
        }
        if json {
            printLine(String(decoding: report.json.serialized(pretty: true), as: UTF8.self))
        } else {
            FileHandle.standardOutput.write(Data(report.text.utf8))
        }
        if !report.passed { throw ExitCode(1) }
    }

    private func makeConfiguration() throws -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(orderDetails: try readOrderDetails())
        if let ca { configuration.trustedRoots = try Self.certificates(ca) }
        if let httpsCA { configuration.httpsRoots = try Self.certificates(httpsCA) }
        configuration.allowsHTTP = allowHTTP
        configuration.update = update
        configuration.unchangedUpdate = unchangedUpdate
        configuration.pushDeadline = .seconds(pushDeadline)
        configuration.quietPeriod = .seconds(quietPeriod)
        configuration.requestTimeout = .seconds(requestTimeout)
        if let apns, let address = Self.hostAndPort(apns) {
            let identity = try apnsIdentity()
            configuration.apns = .init(
                host: address.host,
                port: address.port,
                identity: identity,
                publicKey: try apnsKey.map(Self.publicKey),
                keyID: apnsKeyID,
                teamID: apnsTeamID
            )
        }
        return configuration
    }

    /// The local APNs' TLS identity kept in `apnsTLSFolder`, made there first when missing.
    private func apnsIdentity() throws -> LocalAPNS.TLSIdentity {
        do {
            return try LocalAPNS.TLSIdentity(folder: URL(fileURLWithPath: apnsTLSFolder))
        } catch {
            throw CommandFailure("\(apnsTLSFolder): cannot keep the local APNs' TLS identity there: \(error)")
        }
    }

    private func readOrderDetails() throws -> OrderDetails {
        guard let path = orderDetails else {
            return OrderDetails(
                orderTypeIdentifier: orderTypeIdentifier ?? "",
                orderIdentifier: orderIdentifier ?? "",
                webServiceURL: webServiceURL ?? "",
                authenticationToken: authenticationToken ?? ""
            )
        }
        let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data else { throw CommandFailure("\(path): cannot read the file") }
        do {
            return try OrderDetails(json: data)
        } catch {
            throw CommandFailure("\(path): not orderDetails JSON: \(error)")
        }
    }

    private static func certificates(_ path: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(path): cannot read the file") }
        let certificates = Certificate.allPEM(data)
        guard !certificates.isEmpty else { throw CommandFailure("\(path): holds no PEM certificate") }
        return certificates
    }

    /// A PEM public key, or the public half of a `.p8` private key.
    private static func publicKey(_ path: String) throws -> PublicKey {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(path): cannot read the file") }
        if let key = try? PublicKey(pem: data) { return key }
        guard let privateKey = try? PrivateKey(pem: data), let key = try? PublicKey(pem: Data(privateKey.publicKeyPEM().utf8)) else {
            throw CommandFailure("\(path): holds neither a PEM public key nor a .p8 private key")
        }
        return key
    }

    private static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// A line for the person running the kit, on standard error: standard output holds the report alone.
    private static func inform(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
