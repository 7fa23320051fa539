import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import Logging
import WalletOrdersCrypto
import WalletOrdersModel

/// A local stand-in for APNs: HTTP/2 over TLS, checking each push the way APNs does (method, path, headers,
/// topic, the `{}` body, the provider token's ES256 signature and age) and answering as it is told.
public final class LocalAPNS: Sendable {
    /// A push as it arrived.
    public struct ReceivedPush: Sendable, Equatable {
        public let deviceToken: String
        public let topic: String
        public let pushType: String?
        public let priority: String?
        public let body: String
        public let keyID: String?
        public let teamID: String?
        public let issuedAt: Date?
        /// The client's port: pushes over one connection share it.
        public let clientPort: Int?
        /// What this server answered.
        public let status: Int
        public let reason: String?
    }

    /// What to answer for a device token, instead of 200.
    public enum Behavior: Sendable, Equatable {
        /// Answer `status` with APNs' `reason`, for the next `times` pushes to the token.
        case fail(status: Int, reason: String, times: Int)
        /// Wait `seconds` before answering, every time.
        case stall(seconds: Double)
    }

    private let publicKeys: [String: PublicKey]
    private let teamID: String?
    private let topics: Set<String>?
    private let now: @Sendable () -> Date
    private let onPush: @Sendable (ReceivedPush) -> Void
    private let lock = NSLock()
    nonisolated(unsafe) private var pushes: [ReceivedPush] = []
    nonisolated(unsafe) private var behaviors: [String: Behavior] = [:]

    /// A stand-in that trusts the APNs keys `publicKeys` (key ID → public key) of `teamID`, and accepts only
    /// `topics` when given. `onPush` hears of every push as it is answered.
    public init(publicKeys: [String: PublicKey], teamID: String?, topics: Set<String>? = nil,
                now: @escaping @Sendable () -> Date = Date.init,
                onPush: @escaping @Sendable (ReceivedPush) -> Void = { _ in }) {
        self.publicKeys = publicKeys
        self.teamID = teamID
        self.topics = topics
        self.now = now
        self.onPush = onPush
    }

    /// Every push received so far, in order.
    public var received: [ReceivedPush] { lock.withLock { pushes } }

    /// Forgets the pushes received so far.
    public func reset() { lock.withLock { pushes.removeAll() } }

    /// Answers pushes to `deviceToken` as `behavior` says; nil goes back to 200.
    public func set(_ behavior: Behavior?, for deviceToken: String) {
        lock.withLock { behaviors[deviceToken.lowercased()] = behavior }
    }

    /// The HTTP/2 TLS application on `host:port`; `onRunning` receives the bound port.
    public func application(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = Router(context: APNSRequestContext.self)
        router.post("3/device/:token") { request, context in try await self.handle(request, context: context) }
        return Application(
            router: router,
            server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname(host, port: port), serverName: "local-apns"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    private func handle(_ request: Request, context: APNSRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        let body = String(buffer: try await request.body.collect(upTo: 8_192))
        let topic = request.headers[HTTPField.Name("apns-topic")!] ?? ""
        let pushType = request.headers[HTTPField.Name("apns-push-type")!]
        let priority = request.headers[HTTPField.Name("apns-priority")!]
        let jwt = Self.bearer(request.headers[.authorization])
        let claims = jwt.flatMap(decode)

        var answer: (Int, String?) = (200, nil)
        if token.isEmpty || token.count > 200 || !token.allSatisfy(\.isHexDigit) {
            answer = (400, "BadDeviceToken")
        } else if topic.isEmpty {
            answer = (400, "MissingTopic")
        } else if let topics, !topics.contains(topic) {
            answer = (400, "TopicDisallowed")
        } else if pushType != "background" || priority != "5" {
            // Background pushes must say so and use priority 5; APNs rejects other combinations.
            answer = (400, pushType == nil ? "InvalidPushType" : "BadPriority")
        } else if body.trimmingCharacters(in: .whitespacesAndNewlines) != "{}" {
            answer = (400, "BadPayload")
        } else if jwt == nil {
            answer = (403, "MissingProviderToken")
        } else if let claims {
            if let teamID, claims.teamID != teamID {
                answer = (403, "InvalidProviderToken")
            } else if now().timeIntervalSince(claims.issuedAt) > 3_600 {
                answer = (403, "ExpiredProviderToken")
            } else if claims.issuedAt.timeIntervalSince(now()) > 60 {
                answer = (403, "InvalidProviderToken")
            }
        } else {
            answer = (403, "InvalidProviderToken")
        }
        if answer.0 == 200, let behavior = lock.withLock({ behaviors[token.lowercased()] }) {
            switch behavior {
            case .fail(let status, let reason, let times):
                answer = (status, reason)
                lock.withLock {
                    behaviors[token.lowercased()] = times > 1 ? .fail(status: status, reason: reason, times: times - 1) : nil
                }
            case .stall(let seconds):
                try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            }
        }
        let push = ReceivedPush(
            deviceToken: token, topic: topic, pushType: pushType, priority: priority, body: body,
            keyID: claims?.keyID, teamID: claims?.teamID, issuedAt: claims?.issuedAt,
            clientPort: context.remotePort, status: answer.0, reason: answer.1)
        lock.withLock { pushes.append(push) }
        onPush(push)

        var headers = HTTPFields()
        headers[HTTPField.Name("apns-id")!] = UUID().uuidString
        guard let reason = answer.1 else { return Response(status: .ok, headers: headers) }
        headers[.contentType] = "application/json"
        var fields: [String: JSONValue] = ["reason": .string(reason)]
        if answer.0 == 410 { fields["timestamp"] = .int(Int(now().timeIntervalSince1970 * 1_000)) }
        return Response(status: .init(code: answer.0), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(fields).serialized())))
    }

    private struct Claims {
        let keyID: String
        let teamID: String
        let issuedAt: Date
    }

    /// The token's claims when its ES256 signature checks out with a known key; nil otherwise.
    private func decode(_ jwt: String) -> Claims? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONValue.parse(headerData), let claims = try? JSONValue.parse(claimsData),
              header["alg"] == .string("ES256"), let keyID = header["kid"]?.stringValue,
              let key = publicKeys[keyID],
              key.isValidES256(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
              let team = claims["iss"]?.stringValue, let issuedAt = claims["iat"]?.intValue
        else { return nil }
        return Claims(keyID: keyID, teamID: team, issuedAt: Date(timeIntervalSince1970: Double(issuedAt)))
    }

    private static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7))
    }
}

/// The request context of the stand-in: the client's port, to tell connections apart.
public struct APNSRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remotePort: Int?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remotePort = source.channel.remoteAddress?.port ?? source.channel.parent?.remoteAddress?.port
    }
}
