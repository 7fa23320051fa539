import Foundation
import WalletOrdersCrypto
import WalletOrdersDevice
import WalletOrdersModel

/// One run of the kit against a web service, as a Wallet device would talk to it: the requests in order, each rule
/// judged as soon as the answers it needs are in. Used by one task at a time.
final class ConformanceRun {
    /// How a rule came out, before it is recorded.
    enum Outcome {
        case pass(String)
        case fail(String)
        case skip(String)
    }

    let configuration: ConformanceConfiguration
    let details: OrderDetails
    let base: String
    let client: DeviceHTTPClient
    /// The simulated device: an identifier and a push token of its own, random for each run.
    let device = ConformanceRun.randomHex(bytes: 16)
    let pushToken = ConformanceRun.randomHex(bytes: 32)
    let started = Date()
    var watch: PushWatch?

    private var results: [String: RuleResult] = [:]
    var notes: [String] = []
    var timings = ConformanceReport.UpdateTimings()

    /// What the steps learned, for the steps after them.
    var firstFetch: Answer?
    var firstOrder: OrderDocument?
    /// The certificates the first package's signature carries (the WWDR intermediate): a push certificate's issuer.
    var signatureCertificates: [Certificate] = []
    /// The Last-Modified of the unchanged order, once it stood still.
    var settledLastModified: String?
    /// The listing's tag before the update, and after it.
    var tag: String?
    var updatedTag: String?
    /// Why the device is not registered, when the registration was refused (the rules that need one are skipped).
    var unregistered: String? = "the device did not register"
    /// Sent with each listing: nothing, as Wallet sends, unless the service refused a listing without a token.
    var listingHeaders: [DeviceHTTPClient.HeaderField] = []

    init(_ configuration: ConformanceConfiguration) throws {
        self.configuration = configuration
        details = configuration.orderDetails
        base = WebServicePath.base(configuration.orderDetails.webServiceURL)
        client = try DeviceHTTPClient(certificateAuthorities: configuration.httpsRoots, timeout: configuration.requestTimeout)
    }

    /// Runs every check and answers the report.
    func run() async -> ConformanceReport {
        if let apns = configuration.apns {
            do {
                watch = try await PushWatch(apns, token: pushToken)
            } catch {
                notes.append("The local APNs could not listen on \(apns.host):\(apns.port): \(error)")
            }
        }
        await checkFetch()
        await checkAuthentication()
        await checkCaching()
        await checkRegistration()
        await checkListing()
        await checkLog()
        await checkUpdate()
        await checkUnchangedUpdate()
        await checkUnregistration()
        watch?.close()
        if let others = watch?.pushesForOtherTokens, others > 0 {
            notes.append("The local APNs also took \(others) push\(others == 1 ? "" : "es") for other device tokens.")
        }
        let ordered = Rule.all.map { rule in
            results[rule.id] ?? RuleResult(rule: rule, status: .skipped, detail: "not reached")
        }
        return ConformanceReport(
            target: details.description,
            started: started,
            results: ordered,
            timings: timings,
            notes: notes.map(redacted)
        )
    }

    // MARK: Judging

    /// Records `rule`'s outcome: skipped when the run lacks one of its inputs or one of its dependencies did not
    /// pass (then `judge` is not called), otherwise what `judge` says.
    func judge(_ rule: Rule, _ judge: () async -> Outcome) async {
        let outcome: Outcome
        if let missing = rule.inputs.first(where: { !configuration.has($0) }) {
            outcome = .skip("needs --\(missing.rawValue)")
        } else if let failed = rule.dependencies.first(where: { results[$0]?.status != .pass }) {
            let status = results[failed]?.status.rawValue ?? "not checked"
            outcome = .skip("needs \(failed) to pass (it \(status == "fail" ? "failed" : "was \(status)"))")
        } else {
            outcome = await judge()
        }
        let result: RuleResult
        switch outcome {
        case .pass(let detail): result = RuleResult(rule: rule, status: .pass, detail: redacted(detail))
        case .fail(let detail): result = RuleResult(rule: rule, status: .fail, detail: redacted(detail))
        case .skip(let detail): result = RuleResult(rule: rule, status: .skipped, detail: redacted(detail))
        }
        results[rule.id] = result
    }

    /// Whether `rule` passed.
    func passed(_ rule: Rule) -> Bool { results[rule.id]?.status == .pass }

    /// `text` with the order's authentication token blanked out: a server may echo it in an error.
    func redacted(_ text: String) -> String {
        let token = details.authenticationToken
        return token.isEmpty ? text : text.replacingOccurrences(of: token, with: "{authenticationToken}")
    }

    // MARK: Requests

    /// An answer (or none) to one request.
    struct Answer {
        let method: String
        /// The request's path and query, as a report shows it.
        let target: String
        let response: DeviceHTTPClient.Response?
        /// Why no answer came.
        let failure: String?
        /// When the answer came, by the kit's clock.
        let received: Date
        let instant: ContinuousClock.Instant

        var status: Int? { response?.status }

        func header(_ name: String) -> String? { response?.header(name) }

        /// `GET /v1/orders/… → 404 (text/plain, 9 bytes): not found`, the body cut short.
        var summary: String {
            guard let response else { return "\(method) \(target): no answer (\(failure ?? "?"))" }
            var text = "\(method) \(target) → \(response.status)"
            var facts: [String] = []
            if let type = response.header("Content-Type") { facts.append(type) }
            facts.append("\(response.body.count) bytes")
            text += " (\(facts.joined(separator: ", ")))"
            // A body is quoted when it is text (UTF-8 with no NUL); a package is not.
            if !response.body.isEmpty, !response.body.contains(0), let body = String(data: response.body, encoding: .utf8) {
                text += ": " + EscapedText.excerpt(body)
            }
            return text
        }
    }

    /// Sends one request to the web service; never throws: a request with no answer is an answer with a failure.
    func send(
        _ method: String,
        _ url: String,
        headers: [DeviceHTTPClient.HeaderField] = [],
        body: Data? = nil
    ) async -> Answer {
        let target = url.hasPrefix(base) ? String(url.dropFirst(base.count)) : url
        do {
            let response = try await client.send(method, url, headers: headers, body: body)
            return Answer(method: method, target: target, response: response, failure: nil, received: Date(), instant: .now)
        } catch {
            return Answer(method: method, target: target, response: nil, failure: "\(error)", received: Date(), instant: .now)
        }
    }

    /// `Authorization: AppleOrder {token}`.
    static func authorization(_ token: String) -> DeviceHTTPClient.HeaderField {
        .init("Authorization", "AppleOrder \(token)")
    }

    /// A token that is not the order's: as long, of hex digits.
    var wrongToken: String {
        let length = max(details.authenticationToken.count, 16)
        var token = Self.randomHex(bytes: (length + 1) / 2)
        token = String(token.prefix(length))
        return token == details.authenticationToken ? "0" + token.dropFirst() : token
    }

    var orderURL: String { WebServicePath.order(base, type: details.orderTypeIdentifier, id: details.orderIdentifier) }

    var registrationURL: String {
        WebServicePath.registration(base, device: device, type: details.orderTypeIdentifier, id: details.orderIdentifier)
    }

    func listingURL(device: String? = nil, since tag: String?) -> String {
        WebServicePath.registrations(base, device: device ?? self.device, type: details.orderTypeIdentifier, since: tag)
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// `duration` in milliseconds, one decimal.
    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f ms", value)
    }
}
