import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops
import WalletOrdersTesting

/// The fixtures of Tests/Fixtures/shops, written from each platform's documented payloads, and what the tests around
/// them share: the service's clock, a connection's context, a Wallet order as the service keeps one, and signatures
/// made by the `openssl` command (never by the code under test).
enum ShopFixture {
    /// The service's clock in every test: the day after the fixtures' last event.
    static let now = RFC3339.parseDateTime("2026-03-06T00:00:00Z")!
    static let template = "https://shop.example.com/account/orders/{id}"
    static let context = ShopMappingContext(now: now, orderManagementURLTemplate: template)

    /// The bytes of Tests/Fixtures/shops/`path`.
    static func bytes(_ path: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return Array(try Data(contentsOf: folder.appendingPathComponent("Fixtures/shops/\(path)")))
    }

    /// The fixture at `path` as a JSON object.
    static func object(_ path: String) throws -> [String: JSONValue] {
        try #require(try JSONValue.parse(Data(bytes(path))).objectValue)
    }

    /// The fixture at `path` with `change` made to it, as compact JSON.
    static func edited(_ path: String, _ change: (inout [String: JSONValue]) -> Void) throws -> [UInt8] {
        var object = try object(path)
        change(&object)
        return Array(JSONValue.object(object).serialized())
    }

    /// What the service adds to every order it makes from a shop's: identifiers, merchant, dates, a default link.
    static func serviceDocument(_ identifier: String) -> OrderDocument {
        OrderDocument(fields: [
            "schemaVersion": .int(1),
            "orderTypeIdentifier": .string("order.com.example.shop"),
            "orderIdentifier": .string(identifier),
            "orderType": .string("ecommerce"),
            "orderManagementURL": .string("https://shop.example.com/account"),
            "createdAt": .string("2026-03-02T15:14:05Z"),
            "updatedAt": .string("2026-03-06T00:00:00Z"),
            "status": .string("open"),
            "merchant": .object([
                "merchantIdentifier": .string("merchant.com.example.shop"),
                "displayName": .string("Example Shop"),
                "url": .string("https://shop.example.com"),
            ]),
            "webServiceURL": .string("https://orders.example.com/api"),
            "authenticationToken": .string("c2VjcmV0LXRva2VuLWZvci10ZXN0cw"),
        ])
    }

    /// The base64 HMAC-SHA256 of `body` under `secret`, by `openssl dgst`: what Shopify and WooCommerce send.
    static func hmac(_ body: [UInt8], secret: String) async throws -> String {
        try await Command.hmacSHA256Base64(body, secret: secret)
    }

    /// Every copy of `text` with one byte changed: each position in turn, its low bit flipped (within printable
    /// ASCII, so the result stays a header value).
    static func oneByteChanges(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        return bytes.indices.map { index in
            var changed = bytes
            changed[index] = changed[index] ^ 0x01
            if changed[index] < 0x20 || changed[index] > 0x7E { changed[index] = bytes[index] == 0x41 ? 0x42 : 0x41 }
            return String(decoding: changed, as: UTF8.self)
        }
    }
}
