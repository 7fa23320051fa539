import Foundation

/// What a mapping needs besides the payload, from the connection and the service: the service's clock (which instants
/// are plausible) and the connection's template for `orderManagementURL`.
public struct ShopMappingContext: Sendable, Equatable {
    /// The service's clock: instants later than a few days after it, or before 2000, are dropped.
    public var now: Date
    /// An https URL with `{id}` (the platform's order id) and `{number}` (the shop's order number) in it, such as
    /// `https://shop.example/account/orders/{id}`; nil leaves `orderManagementURL` to the merchant's template.
    public var orderManagementURLTemplate: String?

    public init(now: Date, orderManagementURLTemplate: String? = nil) {
        self.now = now
        self.orderManagementURLTemplate = orderManagementURLTemplate
    }

    /// Whether `template` can make `orderManagementURL`s: an https URL with a host, with or without the placeholders.
    /// For the connection's settings, checked once when they are saved.
    public static func isValidTemplate(_ template: String) -> Bool {
        ShopField.isHTTPSURL(fill(template, id: "1", number: "1"))
    }

    /// The order's `orderManagementURL` from the template, the values percent-encoded; nil without a template or
    /// when the result is not an https URL. A platform's own order status link is never used: Shopify's carries a
    /// key that lets anyone see the order, and Wallet lets people share orders.
    func orderManagementURL(id: String, number: String?) -> String? {
        guard let template = orderManagementURLTemplate else { return nil }
        let url = Self.fill(template, id: id, number: number ?? id)
        return ShopField.isHTTPSURL(url) ? url : nil
    }

    private static func fill(_ template: String, id: String, number: String) -> String {
        template.replacingOccurrences(of: "{id}", with: encode(id)).replacingOccurrences(of: "{number}", with: encode(number))
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded (`#1001` becomes `%231001`).
    private static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
