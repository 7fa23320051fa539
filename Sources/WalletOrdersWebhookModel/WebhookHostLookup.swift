/// How the addresses a webhook URL's host names are learnt when a merchant names the URL, so that one leading to a
/// private network is refused then rather than at its first delivery. The system's resolver, `.system`, lives with
/// the transport in `WalletOrdersWebhooks`: this module does no I/O.
public struct WebhookHostLookup: Sendable {
    private let lookup: @Sendable (String) async throws(AddressError) -> [[UInt8]]

    /// A lookup that answers the addresses `host` names (4 bytes for IPv4, 16 for IPv6), or throws why it cannot.
    public init(_ lookup: @escaping @Sendable (_ host: String) async throws(AddressError) -> [[UInt8]]) {
        self.lookup = lookup
    }

    /// Every address `host` names; throws when it names none.
    public func addresses(of host: String) async throws(AddressError) -> [[UInt8]] {
        try await lookup(host)
    }

    /// Address literals only, with no resolver: a name is refused, as not looked up. For a service that is not given
    /// the system's resolver (tests and tools that name webhook URLs by address, if at all).
    public static let literalsOnly = WebhookHostLookup { host throws(AddressError) in
        guard let address = AddressPolicy.literal(host) else { throw AddressError.notLookedUp(host) }
        return [address]
    }
}
