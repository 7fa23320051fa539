/// What came of a POST: the status code when the endpoint answered, and what went wrong otherwise.
public struct WebhookAnswer: Sendable, Equatable {
    /// The endpoint's status; nil when it did not answer.
    public let statusCode: Int?
    /// What went wrong: no answer, or one that is not 2xx; nil for a 2xx.
    public let error: String?

    /// An answer of `statusCode`, or none, with what went wrong.
    public init(statusCode: Int?, error: String?) {
        self.statusCode = statusCode
        self.error = error
    }

    /// Whether the endpoint took the event: any 2xx.
    public var isSuccess: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
}
