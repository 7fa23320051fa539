import Foundation

/// When one of an order type's certificates stops being valid, as the start-up checks read it: `/metrics` shows it
/// so that an alert can ask for the renewal in time.
public struct CertificateExpiry: Sendable, Equatable {
    /// Which of the order type's certificates.
    public enum Kind: String, Sendable, CaseIterable {
        /// The Order Type ID certificate that signs packages.
        case signing
        /// Apple's WWDR intermediate that issued it.
        case wwdr
        /// The TLS client certificate of certificate-based APNs authentication.
        case apns
    }

    public let orderType: String
    public let kind: Kind
    public let notAfter: Date

    public init(orderType: String, kind: Kind, notAfter: Date) {
        self.orderType = orderType
        self.kind = kind
        self.notAfter = notAfter
    }
}
