import Foundation

/// The rules a webhook URL follows, checked when a merchant names it.
public enum WebhookURL {
    /// The longest URL accepted.
    public static let maxLength = 2_048

    /// What is wrong with `text` as a webhook URL, or nil when nothing is: https (http too when private addresses
    /// are allowed, for development), a host, no user or password, and a host that `lookup` finds public addresses
    /// only for (unless `allowPrivate`).
    public static func problem(with text: String, allowPrivate: Bool, lookup: WebhookHostLookup) async -> String? {
        guard text.utf8.count <= maxLength else { return "the URL is longer than \(maxLength) bytes" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "not an absolute URL" }
        guard scheme == "https" || (scheme == "http" && allowPrivate) else {
            return allowPrivate ? "the URL must be http or https" : "the URL must be https"
        }
        guard components.user == nil, components.password == nil else { return "the URL must not carry a user or password" }
        guard !allowPrivate else { return nil }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        do throws(AddressError) {
            for address in try await lookup.addresses(of: name) where !AddressPolicy.isPublic(address) {
                return AddressError.notPublic(host: name, address: AddressPolicy.text(address)).description
            }
            return nil
        } catch {
            return error.description
        }
    }
}
