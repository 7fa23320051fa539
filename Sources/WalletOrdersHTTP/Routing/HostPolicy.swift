/// Which names the service answers to in `Host`. Any, in production: the proxy in front decides which names reach
/// it. In development, where `/playground` is open and its page holds a merchant key, only the loopback names and
/// those the service was configured with: a page under an attacker's name that resolves to this machine (DNS
/// rebinding) is refused, so it cannot read the playground, nor anything else.
public enum HostPolicy: Sendable, Equatable {
    case any
    /// These host names (lower case, no port, IPv6 in brackets), with any port.
    case only(Set<String>)

    /// `localhost`, `127.0.0.1` and `[::1]`, with `names` besides (the listening address, the public URL's host).
    public static func loopback(adding names: [String] = []) -> HostPolicy {
        let added = names.filter { !$0.isEmpty }.map { name in
            // An IPv6 address is written in brackets in `Host`.
            name.contains(":") && !name.hasPrefix("[") ? "[\(name.lowercased())]" : name.lowercased()
        }
        return .only(Set(["localhost", "127.0.0.1", "[::1]"] + added))
    }

    /// Whether `authority`, a `Host` header's value, names a host this policy accepts.
    func accepts(_ authority: String) -> Bool {
        switch self {
        case .any: true
        case .only(let names): Self.hostName(of: authority).map(names.contains) ?? false
        }
    }

    /// The host `authority` names, lower case, without its port (an IPv6 address keeps its brackets); nil when
    /// what follows the host is not `:` and a port number.
    static func hostName(of authority: String) -> String? {
        let text = authority.lowercased()
        let host: Substring
        let rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            rest = text[text.index(after: close)...]
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            rest = text[colon...]
        } else {
            host = text[...]
            rest = ""
        }
        guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy { ("0"..."9").contains($0) }) else {
            return nil
        }
        return String(host)
    }
}
