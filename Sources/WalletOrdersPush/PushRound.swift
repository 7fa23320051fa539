import WalletOrdersAPNS
import WalletOrdersStore

/// What one round of pushes came to, as the worker tells whoever counts (the metrics): each push's outcome, the
/// refusals of the provider's credentials, and how long APNs took to answer.
public struct PushRound: Sendable {
    /// What became of each push of the round, as recorded in the outbox.
    public var outcomes: [(PushJob, PushOutcome)] = []
    /// Each refusal of the provider's credentials (`InvalidProviderToken`, `BadCertificate`…), by order type.
    public var refusedCredentials: [(orderType: String, reason: APNSReason)] = []
    /// For each order type's batch, sent at once, how long until APNs had answered every push of it.
    public var sendDurations: [Duration] = []

    public init() {}
}
