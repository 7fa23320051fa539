import Foundation

/// The device API's URLs under a web service's base URL, as Wallet builds them: identifiers percent-encoded as path
/// segments, the listing's tag as a query value.
public enum WebServicePath {
    /// A web service URL without a trailing slash.
    public static func base(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// `{base}/v1/orders/{type}/{id}`: the order's package.
    public static func order(_ base: String, type: String, id: String) -> String {
        "\(self.base(base))/v1/orders/\(segment(type))/\(segment(id))"
    }

    /// `{base}/v1/devices/{device}/registrations/{type}/{id}`: registering and unregistering.
    public static func registration(_ base: String, device: String, type: String, id: String) -> String {
        "\(self.base(base))/v1/devices/\(segment(device))/registrations/\(segment(type))/\(segment(id))"
    }

    /// `{base}/v1/devices/{device}/registrations/{type}`, with `?ordersModifiedSince={tag}` when `tag` is given (an
    /// empty tag gives an empty value): which orders changed.
    public static func registrations(_ base: String, device: String, type: String, since tag: String? = nil) -> String {
        let url = "\(self.base(base))/v1/devices/\(segment(device))/registrations/\(segment(type))"
        return tag.map { "\(url)?ordersModifiedSince=\(queryValue($0))" } ?? url
    }

    /// `{base}/v1/log`: where devices post what went wrong.
    public static func log(_ base: String) -> String { "\(self.base(base))/v1/log" }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))
    private static let queryCharacters = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))

    /// `text` percent-encoded as one path segment.
    public static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? text
    }

    /// `text` percent-encoded as a query value.
    public static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryCharacters) ?? text
    }
}
