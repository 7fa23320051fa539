import WalletOrdersAPNS

/// How one order type's pushes travel: the transport, and the provider token when it uses token authentication.
public struct PushRoute: Sendable {
    public let transport: any PushTransport
    public let providerToken: ProviderToken?

    public init(transport: any PushTransport, providerToken: ProviderToken?) {
        self.transport = transport
        self.providerToken = providerToken
    }
}
