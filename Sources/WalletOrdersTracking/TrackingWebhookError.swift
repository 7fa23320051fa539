/// Why a carrier aggregator's webhook request was refused, in words that tell the merchant what to change.
public enum TrackingWebhookError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No webhook secret is configured for the provider: no request can be told from a forged one, so none is taken.
    case noSecret(TrackingProvider)
    /// The signature header is missing, or is not the provider's signature of these bytes under the configured secret.
    case badSignature(TrackingProvider)
    /// The body is signed but is not a payload of the provider this service can read; the text says what is wrong.
    case unreadable(String)

    public var description: String {
        switch self {
        case .noSecret(let provider):
            "no webhook secret is configured for \(provider.name), so no request can be checked; configure the secret "
                + "\(provider.secretSource)"
        case .badSignature(let provider):
            "the \(provider.signatureHeader) header is missing or is not \(provider.name)'s signature of this body under "
                + "the configured secret: configure the secret \(provider.secretSource), and make sure nothing between "
                + "\(provider.name) and this server changes the body"
        case .unreadable(let problem):
            "the body is signed but cannot be read: \(problem)"
        }
    }
}

extension TrackingProvider {
    /// Where the merchant finds the secret the provider signs with, for messages.
    fileprivate var secretSource: String {
        switch self {
        case .aftership: "shown in AfterShip Tracking's admin under Settings, Webhooks"
        case .easypost: "given as webhook_secret when the EasyPost webhook was created or updated (without one EasyPost signs nothing)"
        }
    }
}
