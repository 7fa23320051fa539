/// What came back for a push: APNs' status and reason, or why nothing came back.
public enum APNSResponse: Sendable, Equatable, CustomStringConvertible {
    /// APNs answered with this HTTP status and, for a refusal, its reason.
    case answered(status: Int, reason: APNSReason?)
    /// No answer: the connection failed, timed out or was never made; says why.
    case notAnswered(String)

    /// 200 with no reason.
    public static let delivered = APNSResponse.answered(status: 200, reason: nil)

    /// The status, when APNs answered.
    public var status: Int? {
        if case .answered(let status, _) = self { status } else { nil }
    }

    /// APNs' reason, when it gave one.
    public var reason: APNSReason? {
        if case .answered(_, let reason) = self { reason } else { nil }
    }

    /// The reason as people read it: APNs' reason, its status without one, or why there was no answer.
    public var description: String {
        switch self {
        case .answered(_, let reason?): reason.rawValue
        case .answered(let status, nil): "HTTP \(status)"
        case .notAnswered(let why): why
        }
    }
}
