import Foundation
import NIOConcurrencyHelpers
import NIOCore
import WalletOrdersAPNS
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
        /// The provider token's claims, when it checked out (see `init`).
        public let keyID: String?
        public let teamID: String?
        public let issuedAt: Date?
        /// The provider token as sent (`authorization: bearer …`); nil when none came.
        public let providerToken: String?
        /// The TLS client certificate the provider authenticated with (DER), when it used one.
        public let clientCertificate: Data?
        /// The client's port: pushes over one connection share it.
        public let clientPort: Int?
        /// What this server answered.
        public let status: Int
        public let reason: APNSReason?
    }

    /// What to answer for a device token, instead of 200.
    public enum Behavior: Sendable, Equatable {
        /// Answer `status` with APNs' `reason`, for the next `times` pushes to the token.
        case fail(status: Int, reason: APNSReason, times: Int)
        /// Wait `seconds` before answering, every time.
        case stall(seconds: Double)
    }

    /// An HTTP/2 error seen on a client connection; a connection error closes the connection (GOAWAY).
    public struct ConnectionError: Sendable, Equatable {
        /// The client's port.
        public let clientPort: Int?
        public let description: String
    }

    private struct State {
        var pushes: [ReceivedPush] = []
        var behaviors: [String: Behavior] = [:]
        var connectionsAccepted = 0
        var connectionErrors: [ConnectionError] = []
        /// Who takes the accepted pushes for each device token (lowercased), by subscription.
        var deliveries: [String: [UInt64: AsyncStream<ReceivedPush>.Continuation]] = [:]
        var nextDelivery: UInt64 = 0
    }

    private let teamID: String?
    private let topics: Set<String>?
    private let now: @Sendable () -> Date
    private let recordsPushes: Bool
    private let acceptsAnyPayload: Bool
    private let onPush: @Sendable (ReceivedPush) -> Void
    private let tokens: ProviderTokenCache
    private let state = NIOLockedValueBox(State())
    /// The HTTP/2 settings this stand-in advertises to every client.
    public let settings: ConnectionSettings

    /// A stand-in that trusts the APNs keys `publicKeys` (key ID → public key) of `teamID`, and accepts only
    /// `topics` when given. With `publicKeys` nil, provider tokens are read but their signatures not checked: a
    /// well-formed ES256 token of `teamID` (any team when nil) is accepted. `onPush` hears of every push once its answer is decided, on the connection's event loop:
    /// it must not block. `deliveries(for:)` routes the accepted pushes for one token to the device that owns it.
    /// `recordsPushes: false` keeps `received` empty, for long runs. `acceptsAnyPayload` answers as APNs itself
    /// does, taking any JSON object as the body instead of Wallet's `{}` alone: for a stand-in that judges the body
    /// apart, and must not change what the provider does next.
    public init(
        publicKeys: [String: PublicKey]?,
        teamID: String?,
        topics: Set<String>? = nil,
        now: @escaping @Sendable () -> Date = Date.init,
        settings: ConnectionSettings = .apns,
        recordsPushes: Bool = true,
        acceptsAnyPayload: Bool = false,
        onPush: @escaping @Sendable (ReceivedPush) -> Void = { _ in }
    ) {
        self.acceptsAnyPayload = acceptsAnyPayload
        self.teamID = teamID
        self.topics = topics
        self.now = now
        self.settings = settings
        self.recordsPushes = recordsPushes
        self.onPush = onPush
        tokens = ProviderTokenCache(publicKeys: publicKeys)
    }

    /// Every push received so far, in order.
    public var received: [ReceivedPush] { state.withLockedValue { $0.pushes } }

    /// Forgets the pushes received so far.
    public func reset() { state.withLockedValue { $0.pushes.removeAll() } }

    /// Answers pushes to `deviceToken` as `behavior` says; nil goes back to 200.
    public func set(_ behavior: Behavior?, for deviceToken: String) {
        state.withLockedValue { $0.behaviors[deviceToken.lowercased()] = behavior }
    }

    /// Every push accepted (answered 200) for `deviceToken` from now on, as APNs delivers a push to the device that
    /// owns the token: a simulated device reads its pushes here. The stream ends when its reader stops reading it.
    public func deliveries(for deviceToken: String) -> AsyncStream<ReceivedPush> {
        let key = deviceToken.lowercased()
        let (stream, continuation) = AsyncStream.makeStream(of: ReceivedPush.self)
        let id = state.withLockedValue { state in
            let id = state.nextDelivery
            state.nextDelivery += 1
            state.deliveries[key, default: [:]][id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                state.deliveries[key]?.removeValue(forKey: id)
                if state.deliveries[key]?.isEmpty == true { state.deliveries.removeValue(forKey: key) }
            }
        }
        return stream
    }

    /// How many client connections this stand-in has accepted since it started.
    public var connectionsAccepted: Int { state.withLockedValue { $0.connectionsAccepted } }

    /// The HTTP/2 errors seen on client connections, in order; empty while every connection behaved.
    public var connectionErrors: [ConnectionError] { state.withLockedValue { $0.connectionErrors } }

    /// How many distinct provider tokens had their signature checked (each is checked once).
    public var providerTokensVerified: Int { tokens.verifications }

    func connectionAccepted() { state.withLockedValue { $0.connectionsAccepted += 1 } }

    func connection(port: Int?, failedWith error: any Error) {
        let entry = ConnectionError(clientPort: port, description: String(describing: error))
        state.withLockedValue { $0.connectionErrors.append(entry) }
    }

    /// One request as the connection read it.
    struct Request {
        var method: String?
        var path: String?
        var topic: String?
        var pushType: String?
        var priority: String?
        var authorization: String?
        var body: ByteBuffer
        /// The certificate of a provider authenticating with a TLS client certificate.
        var clientCertificate: Certificate?
        var clientPort: Int?
    }

    /// What to send back: the status, APNs' reason, and how long to wait first.
    struct Answer {
        let status: Int
        let reason: APNSReason?
        let delay: Double?
    }

    /// What this stand-in answers a push whose body is not Wallet's `{}`: APNs itself takes any JSON object, so
    /// this reason is the stand-in's own.
    public static let notWalletsBody = APNSReason.unknown("BadPayload")

    /// Checks `request` as APNs would, applies the token's behavior and records the push.
    func answer(_ request: Request) -> Answer {
        let path = request.path ?? ""
        let prefix = APNSRequest.pathPrefix
        let token = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : ""
        let body = String(buffer: request.body)
        let topic = request.topic ?? ""
        let claims = Self.bearer(request.authorization).flatMap(tokens.claims)

        var answer: (status: Int, reason: APNSReason?) = (200, nil)
        if request.method != "POST" {
            answer = (405, .methodNotAllowed)
        } else if !path.hasPrefix(prefix) {
            answer = (404, .badPath)
        } else if token.isEmpty || token.count > 200 || !token.allSatisfy(\.isHexDigit) {
            answer = (400, .badDeviceToken)
        } else if topic.isEmpty {
            answer = (400, .missingTopic)
        } else if let topics, !topics.contains(topic) {
            answer = (400, .topicDisallowed)
        } else if request.pushType != APNSRequest.pushType || request.priority != APNSRequest.priority {
            // Background pushes must say so and use priority 5; APNs rejects other combinations.
            answer = (400, request.pushType == nil ? .invalidPushType : .badPriority)
        } else if request.body.readableBytes > APNSRequest.maximumPayload {
            answer = (413, .payloadTooLarge)
        } else if request.body.readableBytes == 0 {
            answer = (400, .payloadEmpty)
        } else if !isAcceptedBody(body) {
            answer = (400, Self.notWalletsBody)
        } else if request.authorization == nil, request.clientCertificate != nil {
            // Certificate authentication: the listener decides which certificates it takes.
            answer = (200, nil)
        } else if request.authorization == nil {
            answer = (403, .missingProviderToken)
        } else if let claims {
            // The signature is checked once per token, its age on every request, as APNs does.
            let age = now().timeIntervalSince(claims.issuedAt)
            if let teamID, claims.teamID != teamID {
                answer = (403, .invalidProviderToken)
            } else if age > ProviderToken.lifetime {
                answer = (403, .expiredProviderToken)
            } else if age < -60 {
                answer = (403, .invalidProviderToken)
            }
        } else {
            answer = (403, .invalidProviderToken)
        }

        let key = token.lowercased()
        let push = { (status: Int, reason: APNSReason?) in
            ReceivedPush(
                deviceToken: token,
                topic: topic,
                pushType: request.pushType,
                priority: request.priority,
                body: body,
                keyID: claims?.keyID,
                teamID: claims?.teamID,
                issuedAt: claims?.issuedAt,
                providerToken: Self.bearer(request.authorization),
                clientCertificate: request.clientCertificate?.der,
                clientPort: request.clientPort,
                status: status,
                reason: reason
            )
        }
        let (received, delay, owners) = state.withLockedValue {
            state -> (ReceivedPush, Double?, [AsyncStream<ReceivedPush>.Continuation]) in
            var delay: Double?
            if answer.status == 200, let behavior = state.behaviors[key] {
                switch behavior {
                case .fail(let status, let reason, let times):
                    answer = (status, reason)
                    state.behaviors[key] = times > 1 ? .fail(status: status, reason: reason, times: times - 1) : nil
                case .stall(let seconds):
                    delay = seconds
                }
            }
            let received = push(answer.status, answer.reason)
            if recordsPushes { state.pushes.append(received) }
            let owners = answer.status == 200 ? state.deliveries[key].map { Array($0.values) } ?? [] : []
            return (received, delay, owners)
        }
        onPush(received)
        for owner in owners { owner.yield(received) }
        return Answer(status: answer.status, reason: answer.reason, delay: delay)
    }

    /// The JSON body of an error answer: APNs' `reason`, and the time the token stopped being valid for a 410.
    func errorBody(_ answer: Answer) -> [UInt8]? {
        guard let reason = answer.reason else { return nil }
        var fields: [String: JSONValue] = ["reason": .string(reason.rawValue)]
        if answer.status == 410 { fields["timestamp"] = .int(Int(now().timeIntervalSince1970 * 1_000)) }
        return Array(JSONValue.object(fields).serialized())
    }

    /// Wallet's `{}`, or with `acceptsAnyPayload` any JSON object, as APNs takes.
    private func isAcceptedBody(_ body: String) -> Bool {
        guard acceptsAnyPayload else { return body.trimmingCharacters(in: .whitespacesAndNewlines) == APNSRequest.body }
        return (try? JSONValue.parse(Data(body.utf8)))?.objectValue != nil
    }

    private static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }
}
