import WalletOrdersAPNS
import WalletOrdersCrypto

/// How an order type authenticates to APNs, once its files have been read and checked.
enum APNSCredentials: Sendable {
    /// Token authentication: the provider token made from the `.p8` key.
    case token(ProviderToken)
    /// Certificate authentication: the TLS client certificate.
    case certificate(Certificate)
}
