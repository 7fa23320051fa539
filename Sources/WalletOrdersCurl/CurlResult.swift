import Foundation

/// What came of one transfer: the status the server answered, why the transfer failed if it did, and the body kept.
/// An answer can come and the transfer still fail (its body was cut, or time ran out halfway through it).
public struct CurlResult: Sendable {
    /// The HTTP status the server answered; nil when no answer came.
    public let status: Int?
    /// Why the transfer did not complete: libcurl's words ("Couldn't connect to server"), why an address was
    /// refused, or which call failed; nil when it completed.
    public let failure: CurlError?
    /// The answer's body, when the handle kept it.
    public let body: Data

    init(status: Int?, failure: CurlError?, body: Data) {
        self.status = status
        self.failure = failure
        self.body = body
    }

    /// A transfer that never started, or was given up, for `failure`.
    init(failure: CurlError) {
        self.init(status: nil, failure: failure, body: Data())
    }
}
