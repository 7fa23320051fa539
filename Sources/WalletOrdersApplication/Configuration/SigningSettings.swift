import WalletOrdersCrypto

/// What signing a package offline needs, read under the same keys as an order type's.
public struct SigningSettings: Sendable {
    public var certificate: String?
    public var key: String?
    public var keyPassword: String?
    public var wwdrCertificate: String?
    public var template: String?
    public var manifestDigest: DigestAlgorithm = .sha256

    public init() {}
}
