import Foundation
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersDevice

/// What a run needs: the order Wallet was handed, what to trust, and the optional commands and local APNs for the
/// rules about updates.
public struct ConformanceConfiguration: Sendable {
    /// A local APNs for the server under test to push to.
    public struct APNS: Sendable {
        /// Where it listens (the server under test must be configured to push to `https://host:port`).
        public var host: String
        public var port: Int
        /// Its TLS identity; the server under test trusts `identity.certificateAuthority`.
        public var identity: LocalAPNS.TLSIdentity
        /// The order type's APNs key (its public half), key ID and team: when given, each push's provider token is
        /// checked against them; without a key, a well-formed token is taken at its word.
        public var publicKey: PublicKey?
        public var keyID: String?
        public var teamID: String?

        public init(
            host: String,
            port: Int,
            identity: LocalAPNS.TLSIdentity,
            publicKey: PublicKey? = nil,
            keyID: String? = nil,
            teamID: String? = nil
        ) {
            self.host = host
            self.port = port
            self.identity = identity
            self.publicKey = publicKey
            self.keyID = keyID
            self.teamID = teamID
        }
    }

    /// The order, as Apple Pay hands it to Wallet.
    public var orderDetails: OrderDetails
    /// The roots a package's signer must chain to: Apple's by default, a development root for development chains.
    public var trustedRoots: [Certificate]
    /// Extra certificate authorities for an https web service (besides the system's), for a development TLS setup.
    public var httpsRoots: [Certificate]
    /// Whether a plain-http web service is accepted (package.https is then skipped): for development servers only.
    public var allowsHTTP: Bool
    /// A shell command that makes the server change the order (run with `/bin/sh -c`).
    public var update: String?
    /// A shell command that makes the server "update" the order with what it already holds.
    public var unchangedUpdate: String?
    /// The local APNs to run, if any.
    public var apns: APNS?
    /// How long to wait for a push, for the listing to name an updated order, and for each command.
    public var pushDeadline: Duration
    /// How long to watch for a push that should not come after the unchanged update.
    public var quietPeriod: Duration
    /// How long one request may take.
    public var requestTimeout: Duration

    public init(
        orderDetails: OrderDetails,
        trustedRoots: [Certificate] = [AppleRoot.certificate],
        httpsRoots: [Certificate] = [],
        allowsHTTP: Bool = false,
        update: String? = nil,
        unchangedUpdate: String? = nil,
        apns: APNS? = nil,
        pushDeadline: Duration = .seconds(60),
        quietPeriod: Duration = .seconds(3),
        requestTimeout: Duration = .seconds(30)
    ) {
        self.orderDetails = orderDetails
        self.trustedRoots = trustedRoots
        self.httpsRoots = httpsRoots
        self.allowsHTTP = allowsHTTP
        self.update = update
        self.unchangedUpdate = unchangedUpdate
        self.apns = apns
        self.pushDeadline = pushDeadline
        self.quietPeriod = quietPeriod
        self.requestTimeout = requestTimeout
    }

    /// Whether the run has `input`.
    func has(_ input: Rule.Input) -> Bool {
        switch input {
        case .update: update != nil
        case .unchangedUpdate: unchangedUpdate != nil
        case .apns: apns != nil
        }
    }
}
