/// Why a webhook URL's host cannot be used.
public enum AddressError: Error, Equatable, CustomStringConvertible {
    /// The host resolves to no address.
    case unresolved(String)
    /// The host is a name, and the lookup in use answers address literals only.
    case notLookedUp(String)
    /// The host resolves to an address that is not public.
    case notPublic(host: String, address: String)

    /// What is wrong, as the merchant reads it.
    public var description: String {
        switch self {
        case .unresolved(let host): "\(host) does not resolve to an address"
        case .notLookedUp(let host): "\(host) is a name, and names are not looked up here: use an address"
        case .notPublic(let host, let address):
            "\(host) resolves to \(address), which is not a public address (loopback, private, link-local, metadata, documentation and other special-purpose addresses are refused)"
        }
    }
}
