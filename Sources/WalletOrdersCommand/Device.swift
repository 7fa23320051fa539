import ArgumentParser
import Foundation
import Synchronization
import UnixSignals
import WalletOrdersCrypto
import WalletOrdersDevice

/// `wallet-orders device`: a simulated Wallet device.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A simulated Wallet device: add an order, register for its updates, and follow each push.",
        subcommands: [Watch.self]
    )

    /// `wallet-orders device watch`: add an order to a simulated device and print every step until interrupted.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an order to a simulated device with a local APNs of its own, and print each step.",
            discussion: """
                It starts a local APNs on the development keys (as `apns-sandbox` does, printing pushes for other \
                tokens too), adds the order (from orderDetails: fetch, check, register; from a package: check, \
                register), then follows every push for its token: which orders changed, a conditional fetch of each \
                (200 or 304), the package checked as Wallet would. Problems are posted to the service's /v1/log. \
                Ctrl-C (or SIGTERM) removes the order and unregisters, as deleting it from Wallet does.

                The service pushes only when pointed at this APNs: start it with the two variables printed at start.
                """
        )

        @Option(
            name: .customLong("order-details"),
            help: "A JSON file with orderDetails (the merchant API's answer to creating an order will do); - for stdin."
        )
        var orderDetails: String?

        @Option(help: "An .order file, or an http(s) URL of one, to add instead.")
        var package: String?

        @Option(help: "The web service to use instead of the order's webServiceURL (a server on another port).")
        var server: String?

        @Option(help: "The development keys folder: dev.env and apns-public.pem for the local APNs, root-ca.pem to trust.")
        var keys = "data/dev-keys"

        @Option(help: "The root certificate (PEM) packages must chain to (default: root-ca.pem in the keys folder).")
        var ca: String?

        @Option(name: .customLong("https-ca"), help: "A CA (PEM) to trust for an https web service, besides the system's.")
        var httpsCA: String?

        @Option(name: .customLong("apns-port"), help: "The port the device's local APNs listens on (0 picks a free one).")
        var apnsPort = 2197

        @Option(name: .customLong("device-identifier"), help: "The device library identifier (default: random).")
        var deviceIdentifier: String?

        @Option(name: .customLong("push-token"), help: "The device's push token, hex (default: random, 64 digits).")
        var pushToken: String?

        @Flag(help: "Print each step as a JSON object (kind, time, method, url, status, milliseconds, detail).")
        var json = false

        @Flag(name: .customLong("keep-registration"), help: "On exit, leave the registration in place.")
        var keepRegistration = false

        func validate() throws {
            guard (orderDetails == nil) != (package == nil) else {
                throw ValidationError("give one of --order-details FILE and --package FILE.order")
            }
            if let pushToken, pushToken.isEmpty || !pushToken.allSatisfy(\.isHexDigit) {
                throw ValidationError("--push-token must be hex digits")
            }
        }

        func run() async throws {
            let rootFile = ca ?? URL(fileURLWithPath: keys).appendingPathComponent("root-ca.pem").path
            let roots = try Self.certificates(rootFile)
            let httpsRoots = try httpsCA.map(Self.certificates) ?? []
            let details = try orderDetails.map(Self.readOrderDetails)
            let webServiceURL = server ?? details?.webServiceURL
            // Wallet refuses a plain-http web service; a development server has nothing else.
            let allowHTTP = webServiceURL?.lowercased().hasPrefix("http://") ?? true

            // Trapped from the start, so that a signal during start-up still ends the run through the clean-up.
            let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
            let device = try SimulatedDevice(
                trustedRoots: roots,
                identifier: deviceIdentifier,
                pushToken: pushToken,
                allowsHTTPWebService: allowHTTP,
                client: DeviceHTTPClient(certificateAuthorities: httpsRoots)
            )
            let token = device.pushToken
            let sandbox = try await DevelopmentAPNS.start(keys: keys, port: apnsPort) { push in
                // The device prints the pushes it takes; the others are printed as apns-sandbox prints them.
                if push.status != 200 || push.deviceToken.lowercased() != token {
                    printLine(DevelopmentAPNS.describe(push))
                }
            }
            let events = device.events()
            let printed = Atomic<Int>(0)
            let printer = Task { [json] in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                for await event in events {
                    if json {
                        printLine(String(decoding: (try? encoder.encode(event)) ?? Data(), as: UTF8.self))
                    } else {
                        printLine("\(Self.clock(event.time)) \(event)")
                    }
                    printed.add(1, ordering: .releasing)
                }
            }
            device.connect(to: sandbox.apns)
            printLine(
                """
                Simulated device \(device.identifier), push token \(device.pushToken)
                Local APNs for its pushes on \(sandbox.url). Point the service at it:
                  \(sandbox.environment)
                """
            )
            if allowHTTP, webServiceURL != nil {
                printLine("(plain-http web service accepted for development; Wallet itself requires https)")
            }

            var added: DeviceOrder?
            do {
                if var details {
                    if let server { details.webServiceURL = server }
                    added = try await device.add(details)
                } else if let package {
                    added = try await addPackage(package, to: device)
                }
            } catch {
                await Self.finish(device, printer: printer, sandbox: sandbox)
                throw CommandFailure("the order was not added: \(error)")
            }
            // The steps of adding are printed before the line that says they are done.
            for _ in 0..<100 where printed.load(ordering: .acquiring) < device.transcript.count {
                try? await Task.sleep(for: .milliseconds(10))
            }
            if let added {
                printLine(
                    "Watching \(added.orderTypeIdentifier) / \(added.orderIdentifier)"
                        + (added.isRegistered ? " for pushes" : " (not registered: no pushes will come)")
                        + ". Ctrl-C to stop."
                )
            }

            for await _ in signals { break }

            if let added, !keepRegistration {
                try? await device.remove(added.orderTypeIdentifier, added.orderIdentifier)
            }
            await Self.finish(device, printer: printer, sandbox: sandbox)
        }

        private func addPackage(_ location: String, to device: SimulatedDevice) async throws -> DeviceOrder {
            let lowered = location.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
                return try await device.download(location, webServiceURL: server)
            }
            guard let data = FileManager.default.contents(atPath: location) else {
                throw CommandFailure("\(location): cannot read the file")
            }
            return try await device.add(package: data, webServiceURL: server)
        }

        /// Stops the device, lets the printer show the last steps, and closes the local APNs.
        private static func finish(_ device: SimulatedDevice, printer: Task<Void, Never>, sandbox: DevelopmentAPNS) async {
            device.stop()
            await printer.value
            sandbox.listener.close()
        }

        private static func certificates(_ path: String) throws -> [Certificate] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("\(path): cannot read the file (run `make run` once, or `wallet-orders keys dev`)")
            }
            let certificates = Certificate.allPEM(data)
            guard !certificates.isEmpty else { throw CommandFailure("\(path): holds no PEM certificate") }
            return certificates
        }

        private static func readOrderDetails(_ path: String) throws -> OrderDetails {
            let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
            guard let data else { throw CommandFailure("\(path): cannot read the file") }
            do {
                return try OrderDetails(json: data)
            } catch {
                throw CommandFailure("\(path): not orderDetails JSON: \(error)")
            }
        }

        /// The local time of day with milliseconds.
        private static func clock(_ time: Date) -> String {
            let formatter = DateFormatter()
            formatter.dateFormat = "HH:mm:ss.SSS"
            formatter.locale = Locale(identifier: "en_US_POSIX")
            return formatter.string(from: time)
        }
    }
}
