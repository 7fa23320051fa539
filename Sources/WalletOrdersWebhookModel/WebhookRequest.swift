import Foundation

/// One webhook POST: where, its headers (`name: value`), its body.
public struct WebhookRequest: Sendable {
    /// Where the POST goes.
    public let url: String
    /// The headers, each `name: value`.
    public let headers: [String]
    /// The body, JSON.
    public let body: Data

    /// A POST of `body` with `headers` to `url`.
    public init(url: String, headers: [String], body: Data) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}
