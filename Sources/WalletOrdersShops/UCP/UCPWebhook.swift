import Foundation
import WalletOrdersModel

/// UCP's order webhooks (`dev.ucp.shopping.order`): their signatures, and the order a payload describes.
///
/// A business signs each webhook with RFC 9421 HTTP Message Signatures: `Content-Digest` (RFC 9530, `sha-256`) binds
/// the body; `Signature-Input` lists the covered components and the signature's parameters (`keyid`, `created`);
/// `Signature` holds the signature, made with a key its UCP profile publishes. `Webhook-Id` and `Webhook-Timestamp`
/// follow Standard Webhooks. The body is the whole order as it stands (UCP sends no deltas). UCPWebhook+Order.swift
/// says what each field becomes.
public enum UCPWebhook {
    /// The request headers UCP's webhooks carry, lowercased.
    public static let signatureInputHeader = "signature-input"
    public static let signatureHeader = "signature"
    public static let contentDigestHeader = "content-digest"
    public static let webhookIDHeader = "webhook-id"
    public static let webhookTimestampHeader = "webhook-timestamp"
    public static let agentHeader = "ucp-agent"

    /// A received request, as the signature covers it. `authority` and `scheme` are this service's public ones (the
    /// host the business sends to, `orders.example.com`), not those a proxy in front of it forwarded to; `path` and
    /// `query` as received, percent-encoding and all (`query` without its `?`, nil for none).
    public struct Request: Sendable {
        public var method: String
        public var scheme: String
        public var authority: String
        public var path: String
        public var query: String?
        /// Every header field, names in any case, in the order received; a name may repeat.
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public init(
            method: String,
            scheme: String = "https",
            authority: String,
            path: String,
            query: String? = nil,
            headers: [(name: String, value: String)],
            body: [UInt8]
        ) {
            self.method = method
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    /// How fresh a signature must be.
    public struct Freshness: Sendable, Equatable {
        /// How long after it was signed (`created`, or a covered `Webhook-Timestamp`) a request is taken.
        public var maxAge: TimeInterval
        /// How far ahead of the service's clock the sender's may run.
        public var maxSkew: TimeInterval
        /// Whether a signature that states neither `created` nor covers `Webhook-Timestamp` is refused. UCP makes both
        /// optional; without either, a captured request could be sent again at any time.
        public var requireTimestamp: Bool

        public init(maxAge: TimeInterval = 300, maxSkew: TimeInterval = 60, requireTimestamp: Bool = true) {
            self.maxAge = maxAge
            self.maxSkew = maxSkew
            self.requireTimestamp = requireTimestamp
        }
    }

    /// The components every signature must cover: the method, the target (`@path`, `@target-uri` or
    /// `@request-target`), the body's digest and its type. Any other component the sender lists (`@authority`,
    /// `webhook-id`, `webhook-timestamp`, `ucp-agent` …) is checked too.
    public static let requiredComponents = ["@method", "@path|@target-uri|@request-target", "content-digest", "content-type"]

    /// Whether `request` carries a valid signature by one of `keys` (the business's, from its profile or the
    /// connection), at `now` (the service's clock). Every failure answers false alike: a missing or malformed header,
    /// too many components or labels, a component not covered, a digest that is not the body's, an unknown `alg`, a key
    /// that is not one of `keys`, a signature too old or from the future, a wrong signature. When a request carries
    /// several signatures, one valid one suffices (RFC 9421 section 4.3).
    public static func verify(
        _ request: Request,
        keys: [UCPSigningKey],
        now: Date,
        freshness: Freshness = Freshness()
    ) -> Bool {
        guard !keys.isEmpty, keys.count <= 16 else { return false }
        return HTTPMessageSignature(request: request).verify(keys: keys, now: now, freshness: freshness)
    }

    /// The `Content-Digest` of `body` as UCP sends it: `sha-256=:<base64>:`. For tools and tests that stand in for a
    /// business.
    public static func contentDigest(of body: [UInt8]) -> String {
        HTTPMessageSignature.contentDigest(of: body)
    }

    /// The RFC 9421 signature base of `request` for the `Signature-Input` member `label`: the bytes a business signs.
    /// For tools and tests that stand in for a business; nil when the header does not hold that label or names a
    /// component the request lacks.
    public static func signatureBase(of request: Request, label: String) -> String? {
        HTTPMessageSignature(request: request).base(label: label)
    }
}
