import WalletOrdersService

/// The start-up checks' findings, and what loaded: the order types ready to sign (those without a problem in
/// their identifier, signing files or template) and the APNs credentials that can be used, by order type.
public struct CheckReport: Sendable {
    public var findings: [CheckFinding] = []
    public var orderTypes: [OrderType] = []
    var apnsCredentials: [String: APNSCredentials] = [:]
    /// When each certificate of the order types that loaded expires.
    public var certificates: [CertificateExpiry] = []

    /// Every problem, one sentence each.
    public var problems: [String] { findings.filter { $0.level == .problem }.map(\.message) }
}
