import Foundation
import WalletOrdersModel

/// A webhook's body as JSON, read once for every platform with the same bound.
enum ShopPayload {
    /// The largest body read: Shopify's largest orders (hundreds of line items, each with its tax and discount lines)
    /// stay well below it.
    static let maxBodyBytes = 4 << 20

    /// The body as a JSON object.
    static func object(_ body: [UInt8]) throws(ShopPayloadError) -> [String: JSONValue] {
        guard body.count <= maxBodyBytes else { throw .unreadable("the body is larger than \(maxBodyBytes >> 20) MiB") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(body))
        } catch {
            throw .unreadable("the body is not JSON")
        }
        guard let object = value.objectValue else { throw .unreadable("the body is \(value.typeName), not an object") }
        return object
    }
}
